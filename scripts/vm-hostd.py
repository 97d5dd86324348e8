#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host half of scripts/vm.sh's request channel (the guest's ttyS3).

usage: vm-hostd.py --serial SOCK --qmp SOCK --dir DIR [--device ID]
                  [--migrate-args FILE --pidfile FILE]

Listens on the unix socket SOCK of --serial (QEMU connects to it as the
chardev of the guest's fourth 16550, ttyS3), and answers the guest's
requests, one at a time, in the order they come. Prints "ready" on stdout
once it listens. The QMP socket (QEMU is its server) is connected at the
first request. Exits when QEMU closes the serial connection.

Protocol (lines end with "\\n"; ID is 1 to 32 of [A-Za-z0-9._-], chosen by
the guest to match the answer to its request):

  guest: VDXG-HOST ID screendump HEAD ENC
         HEAD: the console head (the CRTC for vdxg), ENC: raw, gz or none
  host:  VDXG-HOST-BEGIN ID ENC RAWLEN CRC32 PAYLOADLEN
         base64 of the payload (the PPM, gzip-compressed for gz; nothing
         for none), 76 characters a line
         VDXG-HOST-END ID
     or  VDXG-HOST-ERROR ID message

RAWLEN and CRC32 (zlib's crc32, 8 hex digits) describe the PPM itself,
PAYLOADLEN the bytes the base64 encodes. Each screendump is kept as
DIR/screendump-ID.ppm: a guest that only needs the host to have it asks
for none, and does not read a payload through the 16550 while the
picture it shows competes for its CPU. Lines that are not requests are logged and ignored.
Everything is logged to DIR/hostd.log.

A hotplug or a link failure of the device's outputs (vm.sh --device):

  guest: VDXG-HOST ID qom-set PROP VALUE
         PROP: connected0 to connected3 or link-bad0 to link-bad3 of the
         device, VALUE: true or false
  host:  VDXG-HOST-BEGIN ID none 0 00000000 0
         VDXG-HOST-END ID
     or  VDXG-HOST-ERROR ID message

With --migrate-args (scripts/vm.sh --migrate) the guest may also ask for
a live migration of itself:

  guest: VDXG-HOST ID migrate
  host:  VDXG-HOST-BEGIN ID raw RAWLEN CRC32 PAYLOADLEN ... VDXG-HOST-END ID
         (the payload: "key=value" lines, the migration's figures), sent
         by the destination QEMU once the guest runs there
     or  VDXG-HOST-ERROR ID message (from the source, which runs on)

FILE holds the QEMU command line (NUL-separated, the binary first) that
the destination is started with, plus "-qmp unix:SOCKDIR/qmpN" and
"-incoming defer": the same machine, its file chardevs appending to the
same files and its ttyS3 chardev connecting to this helper again (the
listening socket stays open for it). The helper then runs QMP
migrate-incoming on the destination and migrate on the source (over a unix
socket), polls query-migrate until it completes, checks that the
destination runs, writes the destination's pid to the --pidfile (vm.sh
watches that QEMU from then on), quits the source and carries on with the
destination's serial connection and QMP. The destination's output goes to
DIR/qemu-destN.log, the figures to DIR/migrate-N.json and hostd.log.
The final QEMU is the helper's child: it is waited for when its serial
connection closes.
"""
import argparse
import base64
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback
import zlib

REQ = re.compile(r"^VDXG-HOST ([A-Za-z0-9._-]{1,32}) (\S+)(?: (.*))?$")
# The device properties a guest may set: its monitors and their links
QOM_PROP = re.compile(r"^(connected|link-bad)[0-3]$")


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
        try:
            self.sock.sendall(json.dumps(msg).encode() + b"\n")
        except OSError as e:
            # QEMU dropped the connection: once more on a new one.
            self.log(f"qmp {name}: {e}: connecting again")
            self.sock.close()
            self.sock = None
            self.buf = b""
            self._connect()
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
    ap.add_argument("--migrate-args")
    ap.add_argument("--pidfile")
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
    if not a.migrate_args:
        lsock.close()
    log("QEMU connected")
    # The current QEMU's serial connection and QMP, and the destination
    # QEMU this helper started (the last one), all changed by a migration.
    cur = {"conn": conn, "qmp": qmp, "proc": None, "tries": 0}

    def send(data):
        cur["conn"].sendall(data)

    def screendump(rid, args):
        parts = args.split()
        if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in ("raw", "gz", "none"):
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
        cur["qmp"].command("screendump", **cmd)
        with open(path, "rb") as f:
            raw = f.read()
        if enc == "gz":
            payload = gzip.compress(raw, 6, mtime=0)
        else:
            payload = raw if enc == "raw" else b""
        b64 = base64.encodebytes(payload)  # 76 characters a line
        send(f"VDXG-HOST-BEGIN {rid} {enc} {len(raw)} "
             f"{zlib.crc32(raw):08x} {len(payload)}\n".encode())
        send(b64)
        send(f"VDXG-HOST-END {rid}\n".encode())
        log(f"{rid}: screendump head {head}: {len(raw)} bytes, {enc} "
            f"{len(payload)}, sent in {time.monotonic() - t0:.2f} s")

    def qom_set(rid, args):
        parts = args.split()
        if (len(parts) != 2 or not QOM_PROP.match(parts[0]) or
                parts[1] not in ("true", "false")):
            raise RuntimeError(f"bad qom-set arguments '{args}'")
        if not a.device:
            raise RuntimeError("qom-set needs the device's id (vm.sh --device)")
        cur["qmp"].command("qom-set", path=f"/machine/peripheral/{a.device}",
                           property=parts[0], value=parts[1] == "true")
        send(f"VDXG-HOST-BEGIN {rid} none 0 00000000 0\n".encode())
        send(f"VDXG-HOST-END {rid}\n".encode())

    def migrate(rid, args):
        if not a.migrate_args:
            raise RuntimeError("migration needs vm.sh --migrate")
        # N counts attempts: a failed one keeps its qemu-destN.log.
        cur["tries"] += 1
        n = cur["tries"]
        sockdir = os.path.dirname(a.qmp)
        dqmp_path = os.path.join(sockdir, f"qmp{n}")
        uri = "unix:" + os.path.join(sockdir, f"mig{n}")
        with open(a.migrate_args, "rb") as f:
            argv = [x.decode() for x in f.read().split(b"\0") if x]
        argv += ["-qmp", f"unix:{dqmp_path},server=on,wait=off",
                 "-incoming", "defer"]
        dlog = open(os.path.join(a.dir, f"qemu-dest{n}.log"), "wb")
        t0 = time.monotonic()
        dest = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=dlog,
                                stderr=subprocess.STDOUT)
        dlog.close()
        log(f"{rid}: migration {n}: destination QEMU pid {dest.pid}")

        def dest_tail():
            try:
                with open(os.path.join(a.dir, f"qemu-dest{n}.log"),
                          errors="replace") as f:
                    return " | ".join(f.read().split("\n")[-6:]).strip(" |")
            except OSError:
                return ""

        def give_up(msg):
            if dest.poll() is None:
                dest.kill()
            rc = dest.wait()
            # The source goes on, running: QEMU resumes it after most
            # failures, not all (seen: paused after the destination
            # refused the device state).
            state = "?"
            try:
                state = cur["qmp"].command("query-status").get("status")
                if state in ("paused", "postmigrate", "finish-migrate"):
                    log(f"migration {n}: the source is {state}: cont")
                    cur["qmp"].command("cont")
            except (RuntimeError, OSError) as e:
                log(f"migration {n}: the source's QMP: {e}")
            raise RuntimeError(f"migration {n}: {msg} (source {state}; "
                               f"destination status {rc}: {dest_tail()})")

        # Its ttyS3 connects to us while it starts.
        dconn = None
        lsock.settimeout(1)
        while dconn is None:
            try:
                dconn, _ = lsock.accept()
            except socket.timeout:
                if dest.poll() is not None or time.monotonic() - t0 > 60:
                    give_up("the destination did not start")
        lsock.settimeout(None)
        dqmp = Qmp(dqmp_path, log)
        try:
            dqmp.command("migrate-incoming", uri=uri)
            src = cur["qmp"]
            # A unix socket on one host: no bandwidth cap; the default
            # downtime limit (300 ms) is kept.
            src.command("migrate-set-parameters",
                        **{"max-bandwidth": 8 << 30})
            src.command("migrate", uri=uri)
            t_mig = time.monotonic()
            while True:
                info = src.command("query-migrate")
                st = info.get("status")
                if st in ("completed", "failed", "cancelled"):
                    break
                if time.monotonic() - t_mig > 600:
                    src.command("migrate_cancel")
                    raise RuntimeError("did not complete in 600 s")
                time.sleep(0.2)
        except (RuntimeError, OSError) as e:
            give_up(f"{type(e).__name__}: {e}")
        if st != "completed":
            err = info.get("error-desc", "")
            # Let the destination report why before it is killed.
            for _ in range(50):
                if dest.poll() is not None:
                    break
                time.sleep(0.1)
            give_up(f"status {st}{': ' + err if err else ''}")
        # The destination starts running by itself (no -S). Without a
        # return path the source completes once everything is sent: the
        # destination may still refuse the state.
        for _ in range(100):
            if dest.poll() is not None:
                give_up("the destination exited after the source completed "
                        "(it refused the incoming state)")
            try:
                dst = dqmp.command("query-status").get("status")
            except RuntimeError as e:
                give_up(f"destination QMP: {e}")
            if dst == "running":
                break
            time.sleep(0.1)
        else:
            give_up(f"the destination is {dst}, not running")
        ram = info.get("ram", {})
        figures = {
            "migration": n,
            "status": st,
            "total_time_ms": info.get("total-time"),
            "downtime_ms": info.get("downtime"),
            "setup_time_ms": info.get("setup-time"),
            "ram_transferred": ram.get("transferred"),
            "ram_total": ram.get("total"),
            "ram_duplicate_pages": ram.get("duplicate"),
            "dirty_sync_count": ram.get("dirty-sync-count"),
            "wall_s": round(time.monotonic() - t0, 2),
        }
        with open(os.path.join(a.dir, f"migrate-{n}.json"), "w") as f:
            json.dump(figures, f, indent=1)
        log(f"{rid}: migration {n}: " +
            " ".join(f"{k}={v}" for k, v in figures.items()))
        # From now on vm.sh watches the destination; the source goes.
        if a.pidfile:
            with open(a.pidfile + ".tmp", "w") as f:
                f.write(f"{dest.pid}\n")
            os.rename(a.pidfile + ".tmp", a.pidfile)
        try:
            src.command("quit")
        except RuntimeError:
            pass
        old, prev = cur["conn"], cur["proc"]
        cur.update(conn=dconn, qmp=dqmp, proc=dest)
        old.close()
        if prev is not None:
            prev.wait()
        payload = "".join(f"{k}={v}\n" for k, v in figures.items()).encode()
        send(f"VDXG-HOST-BEGIN {rid} raw {len(payload)} "
             f"{zlib.crc32(payload):08x} {len(payload)}\n".encode())
        send(base64.encodebytes(payload))
        send(f"VDXG-HOST-END {rid}\n".encode())

    buf = b""
    while True:
        try:
            data = cur["conn"].recv(65536)
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
                elif what == "qom-set":
                    qom_set(rid, args)
                elif what == "migrate":
                    migrate(rid, args)
                else:
                    raise RuntimeError(f"unknown request '{what}'")
            except (RuntimeError, OSError, ValueError) as e:
                msg = " ".join(str(e).split())
                log(f"{rid}: error: {msg}")
                if isinstance(e, OSError):
                    log(traceback.format_exc().rstrip())
                try:
                    send(f"VDXG-HOST-ERROR {rid} {msg}\n".encode())
                except OSError:
                    break
    log("serial closed")
    if cur["proc"] is not None:
        log(f"destination QEMU exited with status {cur['proc'].wait()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
