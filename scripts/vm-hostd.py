#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host half of scripts/vm.sh's request channel (the guest's ttyS3).

usage: vm-hostd.py --serial SOCK --qmp SOCK --dir DIR [--device ID]

Listens on the unix socket SOCK of --serial (QEMU connects to it as the
chardev of the guest's fourth 16550, ttyS3), and answers the guest's
requests, one at a time, in the order they come. Prints "ready" on stdout
once it listens. The QMP socket (QEMU is its server) is connected at the
first request. Exits when QEMU closes the serial connection.

Protocol (lines end with "\\n"; ID is 1 to 32 of [A-Za-z0-9._-], chosen by
the guest to match the answer to its request):

  guest: VDXG-HOST ID screendump HEAD ENC
         HEAD: the console head (the CRTC for vdxg), ENC: raw or gz
  host:  VDXG-HOST-BEGIN ID ENC RAWLEN CRC32 PAYLOADLEN
         base64 of the payload (the PPM, gzip-compressed for gz), 76
         characters a line
         VDXG-HOST-END ID
     or  VDXG-HOST-ERROR ID message

RAWLEN and CRC32 (zlib's crc32, 8 hex digits) describe the PPM itself,
PAYLOADLEN the bytes the base64 encodes. Each screendump is kept as
DIR/screendump-ID.ppm. Lines that are not requests are logged and ignored.
Everything is logged to DIR/hostd.log.
"""
import argparse
import base64
import gzip
import json
import os
import re
import socket
import sys
import time
import zlib

REQ = re.compile(r"^VDXG-HOST ([A-Za-z0-9._-]{1,32}) (\S+)(?: (.*))?$")


class Qmp:
    """A minimal QMP client over a unix socket, connected on first use."""

    def __init__(self, path, log):
        self.path = path
        self.log = log
        self.sock = None
        self.buf = b""

    def _connect(self):
        deadline = time.monotonic() + 30
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.path)
                break
            except OSError as e:
                s.close()
                if time.monotonic() > deadline:
                    raise RuntimeError(f"cannot connect to QMP {self.path}: {e}")
                time.sleep(0.1)
        self.sock = s
        greeting = self._recv()
        if "QMP" not in greeting:
            raise RuntimeError(f"no QMP greeting: {greeting}")
        self.command("qmp_capabilities")

    def _recv(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("QMP connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def command(self, name, **args):
        if self.sock is None:
            self._connect()
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = self._recv()
            if "event" in r:
                self.log(f"qmp event {r.get('event')}")
                continue
            if "error" in r:
                raise RuntimeError(f"{name}: {r['error'].get('desc', r['error'])}")
            return r.get("return")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serial", required=True)
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--device", default="")
    a = ap.parse_args()

    logf = open(os.path.join(a.dir, "hostd.log"), "a", buffering=1)

    def log(msg):
        logf.write(f"{time.strftime('%H:%M:%S')} {msg}\n")

    qmp = Qmp(a.qmp, log)

    try:
        os.unlink(a.serial)
    except FileNotFoundError:
        pass
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(a.serial)
    lsock.listen(1)
    print("ready", flush=True)
    conn, _ = lsock.accept()
    lsock.close()
    log("QEMU connected")

    def send(data):
        conn.sendall(data)

    def screendump(rid, args):
        parts = args.split()
        if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in ("raw", "gz"):
            raise RuntimeError(f"bad screendump arguments '{args}'")
        head, enc = int(parts[0]), parts[1]
        path = os.path.join(a.dir, f"screendump-{rid}.ppm")
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        cmd = {"filename": path, "format": "ppm"}
        if a.device:
            cmd["device"] = a.device
            cmd["head"] = head
        elif head:
            raise RuntimeError("head > 0 needs the device's id (vm.sh --device)")
        t0 = time.monotonic()
        qmp.command("screendump", **cmd)
        with open(path, "rb") as f:
            raw = f.read()
        payload = gzip.compress(raw, 6, mtime=0) if enc == "gz" else raw
        b64 = base64.encodebytes(payload)  # 76 characters a line
        send(f"VDXG-HOST-BEGIN {rid} {enc} {len(raw)} "
             f"{zlib.crc32(raw):08x} {len(payload)}\n".encode())
        send(b64)
        send(f"VDXG-HOST-END {rid}\n".encode())
        log(f"{rid}: screendump head {head}: {len(raw)} bytes, {enc} "
            f"{len(payload)}, sent in {time.monotonic() - t0:.2f} s")

    buf = b""
    while True:
        try:
            data = conn.recv(65536)
        except OSError as e:
            log(f"serial: {e}")
            break
        if not data:
            break
        buf += data
        while b"\n" in buf:
            raw_line, buf = buf.split(b"\n", 1)
            line = raw_line.decode("ascii", "replace").strip("\r\0 ")
            m = REQ.match(line)
            if not m:
                if line:
                    log(f"ignored: {line[:200]!r}")
                continue
            rid, what, args = m.group(1), m.group(2), m.group(3) or ""
            log(f"{rid}: {what} {args}")
            try:
                if what == "screendump":
                    screendump(rid, args)
                else:
                    raise RuntimeError(f"unknown request '{what}'")
            except (RuntimeError, OSError, ValueError) as e:
                msg = " ".join(str(e).split())
                log(f"{rid}: error: {msg}")
                try:
                    send(f"VDXG-HOST-ERROR {rid} {msg}\n".encode())
                except OSError:
                    break
    log("serial closed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
