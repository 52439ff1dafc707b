"""The table's hardware: the LED grid under the board (``leds.LedGrid``, its simulated
device ``emulator.LedEmulator``) and the physical buttons (``buttons.TableButtons``).

Importing the package is cheap; pyserial, gpiozero and Pillow load when used.
"""
