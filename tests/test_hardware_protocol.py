"""Wire formats: byte-exact golden frames and the WLED decoder fed with them."""
import pytest
from hypothesis import given, settings, strategies as st

from hardware.protocol import (adalight_encoder, tpm2_encoder, WledDecoder, baud_switch_byte, make_encoder)

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


def test_tpm2_frame_without_end_byte_is_dropped():
    d = WledDecoder()
    frame = tpm2_encoder(3).encode(RGB3)
    assert d.feed(frame[:-1] + b"\x00").frames == []
    assert d.feed(frame).frames == [("tpm2", RGB3)]


def test_tpm2_ping_is_counted():
    assert WledDecoder().feed(b"\xc9\xaa").pings == 1


@settings(max_examples=60, deadline=None)
@given(protocol=st.sampled_from(["adalight", "tpm2"]), count=st.integers(1, 200), data=st.data())
def test_encode_decode_round_trip_in_any_chunks(protocol, count, data):
    frames = [data.draw(st.binary(min_size=3 * count, max_size=3 * count)) for _ in range(3)]
    wire = b"".join(make_encoder(protocol, count).encode(f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    d = WledDecoder()
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)]):
        got += d.feed(wire[a:b]).frames
    assert got == [(protocol, f) for f in frames]


def test_version_query_only_between_frames():
    d = WledDecoder()
    rgb_with_v = b"vvv" * 3
    out = d.feed(b"v" + adalight_encoder(3).encode(rgb_with_v))
    assert out.version_requests == 1 and out.frames == [("adalight", rgb_with_v)]
