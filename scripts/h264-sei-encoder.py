#!/usr/bin/python3
"""An aircraft's H.264 encoder that carries flight data in the video, for simple-whip-client.

Debian 12's GStreamer (1.22) has no element that inserts SEI, and simple-whip-client (a C
program, packaged) builds its pipeline from a gst-launch string, where no pad probe can be
added. So the encoder runs here, in a pipeline of its own with a pad probe on h264parse's
source pad (one access unit a buffer), and sends RTP to a local UDP port; the client's pipeline
reads it there and publishes it over WHIP (docs/deployment.md, "Flight data from an aircraft's
encoder"):

    python3 scripts/h264-sei-encoder.py --port 5004 < payloads &
    whip-client -u URL -t TOKEN -V 'udpsrc port=5004 caps="application/x-rtp,media=video,\
encoding-name=H264,clock-rate=90000,payload=96" ! rtph264depay ! h264parse ! \
rtph264pay config-interval=-1 pt=96 ! queue ! application/x-rtp,media=video,\
encoding-name=H264,payload=96'

Payloads (a MISB ST 0601 packet each, docs/flight-data.md) come on standard input, one a line in
hex, as the aircraft's telemetry makes them. The probe puts each in an SEI user_data_unregistered
NAL unit with Amazon IVS's UUID before the first slice of the next access unit, and of
--repeat access units after, as the IVS Web Broadcast SDK's insertSeiMessage does
(docs/decisions/0094-in-band-messages.md). A payload of 0 or over 1,024 bytes, or a line that is
not hex, is refused with a message on standard error and changes nothing.

Needs python3-gi and gir1.2-gstreamer-1.0, x264enc (gstreamer1.0-plugins-ugly).
"""
import argparse
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

IVS_SEI_UUID = bytes.fromhex("9e504ea5ee5a4f02949fb033a3768da2")
MAX_PAYLOAD_BYTES = 1024
MAX_REPEAT_COUNT = 30
SEI_NAL_TYPE = 6
USER_DATA_UNREGISTERED = 5


def sei_nal_unit(payload):
    """An SEI NAL unit (with its start code) carrying `payload` under IVS's UUID."""
    size = len(IVS_SEI_UUID) + len(payload)
    rbsp = bytearray([SEI_NAL_TYPE, USER_DATA_UNREGISTERED])
    while size >= 255:
        rbsp.append(255)
        size -= 255
    rbsp += bytes([size]) + IVS_SEI_UUID + payload + b"\x80"
    # Emulation prevention: no 00 00 0x (x <= 3) inside the NAL unit.
    out = bytearray(b"\x00\x00\x00\x01")
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def first_slice_start(data):
    """The offset of the start code of the first slice (NAL types 1-5), or the data's end."""
    index = data.find(b"\x00\x00\x01")
    while index != -1 and index + 3 < len(data):
        if 1 <= data[index + 3] & 0x1F <= 5:
            return index - 1 if index > 0 and data[index - 1] == 0 else index
        index = data.find(b"\x00\x00\x01", index + 3)
    return len(data)


class Waiting:
    """The payloads for the next access units: each on the next one and on `repeat` after."""

    def __init__(self, repeat):
        self.repeat = repeat
        self.lock = threading.Lock()
        self.waiting = []  # [payload, access units left]
        # True while the probe pushes an access unit of its own (on the streaming thread).
        self.passing = False

    def add(self, payload):
        with self.lock:
            self.waiting.append([payload, self.repeat + 1])

    def next(self):
        with self.lock:
            payloads = [each[0] for each in self.waiting]
            for each in self.waiting:
                each[1] -= 1
            self.waiting = [each for each in self.waiting if each[1] > 0]
            return payloads


def on_access_unit(pad, info, waiting):
    """The pad probe: the access unit going out, with the waiting payloads' SEI first.

    PyGObject cannot make the probe's buffer writable (its wrapper holds a reference) nor hand a
    new one back through the probe's info, so the probe pushes the longer access unit itself,
    with the same timestamps and flags, and drops the one it was given.
    """
    if waiting.passing:
        return Gst.PadProbeReturn.OK
    payloads = waiting.next()
    if not payloads:
        return Gst.PadProbeReturn.OK
    buffer = info.get_buffer()
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    if not ok:
        return Gst.PadProbeReturn.OK
    data = bytes(mapped.data)
    buffer.unmap(mapped)
    at = first_slice_start(data)
    units = b"".join(sei_nal_unit(payload) for payload in payloads)
    out = Gst.Buffer.new_wrapped(data[:at] + units + data[at:])
    out.pts, out.dts, out.duration = buffer.pts, buffer.dts, buffer.duration
    out.set_flags(buffer.get_flags())  # a key frame's, a delta unit's
    waiting.passing = True
    try:
        pad.push(out)
    finally:
        waiting.passing = False
    return Gst.PadProbeReturn.DROP


def read_payloads(waiting):
    for line in sys.stdin:
        text = line.strip()
        if not text:
            continue
        try:
            payload = bytes.fromhex(text)
        except ValueError:
            print("h264-sei-encoder: a line that is not hex, left out", file=sys.stderr, flush=True)
            continue
        if not 0 < len(payload) <= MAX_PAYLOAD_BYTES:
            refused = f"a payload of {len(payload)} bytes (1 to {MAX_PAYLOAD_BYTES}), left out"
            print(f"h264-sei-encoder: {refused}", file=sys.stderr, flush=True)
            continue
        waiting.add(payload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--port", type=int, required=True, help="the local UDP port the WHIP client reads"
    )
    parser.add_argument(
        "--source",
        default="videotestsrc is-live=true pattern=smpte ! "
        "video/x-raw,width=320,height=240,framerate=15/1",
        help="the camera, as a gst-launch fragment of raw video",
    )
    parser.add_argument(
        "--repeat", type=int, default=2, help=f"repeats of each payload (0 to {MAX_REPEAT_COUNT})"
    )
    options = parser.parse_args()
    if not 0 <= options.repeat <= MAX_REPEAT_COUNT:
        parser.error(f"--repeat must be 0 to {MAX_REPEAT_COUNT}")

    Gst.init(None)
    pipeline = Gst.parse_launch(
        f"{options.source} ! videoconvert ! queue ! "
        "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
        "video/x-h264,profile=constrained-baseline,stream-format=byte-stream,alignment=au ! "
        "h264parse name=parsed ! video/x-h264,stream-format=byte-stream,alignment=au ! "
        f"rtph264pay config-interval=-1 pt=96 ! udpsink host=127.0.0.1 port={options.port}"
    )
    waiting = Waiting(options.repeat)
    pipeline.get_by_name("parsed").get_static_pad("src").add_probe(
        Gst.PadProbeType.BUFFER, on_access_unit, waiting
    )
    threading.Thread(target=read_payloads, args=(waiting,), daemon=True).start()

    loop = GLib.MainLoop()

    def on_message(_bus, message):
        if message.type == Gst.MessageType.ERROR:
            error, _debug = message.parse_error()
            print(f"h264-sei-encoder: {error.message}", file=sys.stderr, flush=True)
            loop.quit()
        elif message.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 2, loop.quit)  # SIGINT
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)  # SIGTERM
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    finally:
        pipeline.set_state(Gst.State.NULL)


if __name__ == "__main__":
    main()
