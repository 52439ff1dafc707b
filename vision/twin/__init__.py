"""The synthetic camera (the digital twin): draws what an overhead camera sees of a position.

It is the demo's default camera, the test-data generator and the ground truth of the reader's
accuracy figures.  It follows the reader's marker scheme so both use one data file; the
reading stages never import it (only the ``synthetic`` frame source and the eval do).

| module | what it holds |
| --- | --- |
| ``scene`` | ``render``/``render_burst``: a position to a camera image and its ``Truth`` |
| ``board`` | the board and table texture to scale, corner markers and pillars |
| ``pieces`` | the pieces' bodies, heights and stickers, and where they stand on a square |
| ``camera`` | the posed pinhole camera with lens distortion, texture sampling |
| ``effects`` | the room and the sensor: light, colour temperature, glare, blur, noise, JPEG |
| ``positions`` | random positions made of the game's real pieces (seeded) |
| ``draw`` | millimetre drawing canvas shared by the board and piece textures |
| ``table`` | the simulated table: physical pieces apart from the game, filmed as frames |
| ``cli`` | ``flure vision render`` |

Kept as a package of its own so a module import stays cheap: import the module you need.
"""
