#!/usr/bin/env python3
"""slow_feed.py FILE: FILE on stdout (a pipe) in two parts, the second 1.3 s after the reader has taken the first.

tests/cli/terminal.sh's trace must take its reader more than a second. Sleeping 1.3 s after writing the first part
was not enough on a loaded machine: when the reader (a sanitized nextstep) started more than 1.3 s late, both
parts were in the pipe and it read them at once, with no progress line. So the wait starts when the pipe is empty
(FIONREAD on the pipe: bytes not yet read), which is when the reader has read the first part.
"""
import fcntl
import os
import struct
import sys
import termios
import time

data = open(sys.argv[1], "rb").read()
out = sys.stdout.fileno()
os.write(out, data[:100])
deadline = time.monotonic() + 60  # a reader that never reads: give up waiting, write the rest
while time.monotonic() < deadline:
    left = struct.unpack("i", fcntl.ioctl(out, termios.FIONREAD, b"\0\0\0\0"))[0]
    if left == 0:
        break
    time.sleep(0.01)
time.sleep(1.3)
os.write(out, data[100:])
