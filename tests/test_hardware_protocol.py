"""Wire formats: byte-exact golden frames and the WLED decoder fed with them."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.protocol import (
    WledDecoder,
    adalight_encoder,
    baud_switch_byte,
    make_encoder,
    tpm2_encoder,
    wled_misreads_tpm2,
    wled_tpm2_count,
)
from tests.hardware_helpers import harmful_rgb

RGB3 = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])


def test_adalight_golden_three_leds():
    # 'Ada', count-1 = 2 → hi 0x00 lo 0x02, checksum 0x00 ^ 0x02 ^ 0x55 = 0x57
    assert adalight_encoder(3).encode(RGB3) == bytes.fromhex("416461 00 02 57 ff0000 00ff00 0000ff")


def test_adalight_golden_header_for_the_board():
    # 156 LEDs: count-1 = 155 = 0x009B; checksum 0x00 ^ 0x9B ^ 0x55 = 0xCE
    assert adalight_encoder(156).header == bytes.fromhex("416461009bce")
    # 300 LEDs: count-1 = 299 = 0x012B; checksum 0x01 ^ 0x2B ^ 0x55 = 0x7F
    assert adalight_encoder(300).header == bytes.fromhex("416461012b7f")


def test_tpm2_golden_three_leds():
    # 0xC9 start, 0xDA data, payload 9 bytes = 0x0009, RGB, 0x36 end
    assert tpm2_encoder(3).encode(RGB3) == bytes.fromhex("c9da0009 ff0000 00ff00 0000ff 36")


def test_tpm2_golden_header_for_the_board():
    assert tpm2_encoder(156).header == bytes.fromhex("c9da01d4")  # 468 payload bytes


def test_wrong_frame_length_is_refused_with_the_sizes():
    with pytest.raises(ValueError, match="468 bytes, not 3"):
        make_encoder("adalight", 156).encode(b"\x00\x00\x00")
    with pytest.raises(ValueError, match="not supported"):
        make_encoder("dmx", 3)


def test_baud_switch_bytes_match_wled():
    assert [baud_switch_byte(b)[0] for b in (115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1500000)] \
        == list(range(0xB0, 0xB8))
    with pytest.raises(ValueError, match="no baud-switch byte for 9600"):
        baud_switch_byte(9600)


def test_decoder_reads_both_protocols_and_baud_switch():
    d = WledDecoder()
    out = d.feed(adalight_encoder(3).encode(RGB3) + b"\xb5" + tpm2_encoder(3).encode(RGB3[::-1]))
    assert out.frames == [("adalight", RGB3), ("tpm2", RGB3[::-1])]
    assert out.bauds == [921600]


def test_decoder_resynchronises_after_garbage_and_bad_checksum():
    d = WledDecoder()
    frame = adalight_encoder(3).encode(RGB3)
    bad = bytearray(frame)
    bad[5] ^= 0xFF  # checksum broken: WLED drops the header
    out = d.feed(b"\x00zzAdAd" + bytes(bad[:6]) + frame)
    assert out.frames == [("adalight", RGB3)]
    assert d.errors == 1
    # like WLED, the byte that breaks a header is dropped, not re-read: "AAda…" is lost
    assert d.feed(b"A" + frame).frames == [] and d.feed(frame).frames == [("adalight", RGB3)]


def test_strict_tpm2_frame_without_end_byte_is_dropped():
    d = WledDecoder(tpm2="strict")
    frame = tpm2_encoder(3).encode(RGB3)
    assert d.feed(frame[:-1] + b"\x00").frames == []
    assert d.errors == 1
    assert d.feed(frame).frames == [("tpm2", RGB3)]


def test_wled_reads_tpm2_lengths_one_byte_at_a_time():
    # WLED: count = hi*256/3 + lo/3 with integer division, end byte never checked
    assert wled_tpm2_count(468) == 85 + 70 == 155          # the board's 156 LEDs: 0x01D4
    assert wled_tpm2_count(3 * 85) == 85 and wled_tpm2_count(3 * 256) == 256
    # wrong whenever the high length byte is 1 or 2 modulo 3: 86–255 LEDs, 342–511, …
    assert [n for n in (3, 85, 86, 155, 156, 255, 256, 341, 342) if wled_misreads_tpm2(n)] == [86, 155, 156, 255, 342]
    assert WledDecoder().feed(tpm2_encoder(3).encode(RGB3)[:-1]).frames == [("tpm2", RGB3)]  # no 0x36 needed


def test_tpm2_to_wled_with_156_leds_turns_the_last_led_into_commands():
    """What a real WLED does with a 156-LED TPM2 frame: 155 pixels, then the 156th pixel's
    bytes are read as commands (0xB5 would switch its baud rate, '{' starts a JSON read)."""
    rgb = bytes(3 * 155) + bytes((0xB5, ord("{"), 0))
    wled = WledDecoder().feed(tpm2_encoder(156).encode(rgb))
    assert wled.frames == [("tpm2", bytes(3 * 155))]
    assert wled.bauds == [921600] and wled.commands == [ord("{")]
    # a last LED of (0x41, 0x64, 0x61) = "Ada" starts a header that swallows the next frame
    rgb = bytes(3 * 155) + b"Ada"
    wire = tpm2_encoder(156).encode(rgb) + adalight_encoder(3).encode(RGB3)
    assert WledDecoder().feed(wire).frames == [("tpm2", bytes(3 * 155))]
    strict = WledDecoder(tpm2="strict").feed(wire)
    assert strict.frames == [("tpm2", rgb), ("adalight", RGB3)] and strict.bauds == [] and strict.commands == []


def test_tpm2_ping_is_counted():
    assert WledDecoder().feed(b"\xc9\xaa").pings == 1


@settings(max_examples=80, deadline=None)
@given(protocol=st.sampled_from(["adalight", "tpm2"]), mode=st.sampled_from(["wled", "strict"]),
       count=st.integers(1, 400), data=st.data())
def test_encode_decode_round_trip_in_any_chunks(protocol, mode, count, data):
    """Every frame comes back whole, however the bytes are split: always with Adalight,
    and with TPM2 on a strict receiver or on a WLED at a length WLED reads right."""
    frames = [data.draw(st.binary(min_size=3 * count, max_size=3 * count)) for _ in range(3)]
    wire = b"".join(make_encoder(protocol, count).encode(f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    d = WledDecoder(tpm2=mode)
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)]):
        got += d.feed(wire[a:b]).frames
    if protocol == "tpm2" and mode == "wled" and wled_misreads_tpm2(count):
        assert got[0] == ("tpm2", frames[0][:-3])  # one LED short (see the test above)
    else:
        assert got == [(protocol, f) for f in frames] and d.errors == 0


def test_version_query_only_between_frames():
    d = WledDecoder()
    rgb_with_v = b"vvv" * 3
    out = d.feed(b"v" + adalight_encoder(3).encode(rgb_with_v))
    assert out.version_requests == 1 and out.frames == [("adalight", rgb_with_v)]


def test_the_frame_that_enters_realtime_mode_is_reported_blanked():
    """WLED's realtimeLock() clears the strip after the first frame's pixels were set: blanked is
    that frame (the first of a feed), again after exit_realtime() (WLED's timeout), never otherwise."""
    d = WledDecoder()
    frame = adalight_encoder(3).encode(RGB3)
    out = d.feed(frame + frame)
    assert out.blanked and out.frames == [("adalight", RGB3)] * 2 and d.realtime
    assert not d.feed(frame).blanked
    d.exit_realtime()
    assert not d.realtime and d.feed(frame[:10]).frames == []
    assert d.feed(frame[10:]).blanked and d.realtime   # completed after the timeout: still the first
    assert not WledDecoder().feed(b"v\xb5" + frame[:-1]).blanked   # no frame yet, no mode


@pytest.mark.parametrize("protocol, mode", [("adalight", "wled"), ("adalight", "strict"), ("tpm2", "strict"),
                                            ("tpm2", "wled")])
@pytest.mark.parametrize("count", [1, 3, 85, 86, 156, 300])
def test_the_flush_ends_a_frame_cut_after_any_byte(protocol, mode, count):
    """After a frame cut after each possible byte count, the encoder's flush leaves the parser between
    frames without acting on anything, and the next whole frame is read right (TPM2 on a WLED: where
    WLED reads its length right)."""
    enc = make_encoder(protocol, count)
    cut, whole = enc.encode(harmful_rgb(count)), enc.encode(harmful_rgb(count)[::-1])
    for k in range(len(cut) + 1):
        d = WledDecoder(tpm2=mode)
        d.feed(cut[:k])
        out = d.feed(enc.flush)
        assert (out.bauds, out.commands, out.version_requests, out.pings) == ([], [], 0, 0), k
        out = d.feed(whole)
        if not (protocol == "tpm2" and mode == "wled" and wled_misreads_tpm2(count)):
            assert out.frames == [(protocol, harmful_rgb(count)[::-1])] and out.bauds == [] == out.commands, k


def test_without_the_flush_a_cut_frame_lets_the_next_one_switch_the_baud_rate():
    """Why the flush: WLED has no inter-byte timeout, so the next frame completes the cut one and the
    rest of it is read as commands (the issue's case: the wiring test's blue squares, 00 B4 FF)."""
    enc = adalight_encoder(156)
    frame = enc.encode(harmful_rgb(156))
    switched = [k for k in range(len(frame)) if WledDecoder().feed(frame[:k] + frame).bauds]
    assert 1 in switched and len(switched) > len(frame) // 2   # a cut header, or a cut pixel run


def test_wled_reads_a_zero_tpm2_length_as_65536_leds():
    """WLED's count is 16 bits and decremented after each pixel: a length under 3 reads 65536 pixels
    (why the TPM2 flush is made of 0x03, not 0x00); a plain receiver refuses it."""
    wire = bytes.fromhex("c9da0000") + bytes(3 * 0x10000 - 1)
    d = WledDecoder()
    assert d.feed(wire).frames == [] and d.feed(b"\x07").frames == [("tpm2", bytes(3 * 0x10000 - 1) + b"\x07")]
    strict = WledDecoder(tpm2="strict")
    assert strict.feed(wire[:4]).frames == [] and strict.errors == 1
    # a length that is no multiple of 3: WLED reads it its way (0x0101: 85 LEDs), a plain receiver refuses it
    assert WledDecoder().feed(bytes.fromhex("c9da0101") + bytes(255)).frames == [("tpm2", bytes(255))]
    assert WledDecoder(tpm2="strict").feed(bytes.fromhex("c9da0101") + bytes(255)).frames == []
