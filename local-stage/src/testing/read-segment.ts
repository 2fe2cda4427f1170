/**
 * A recorded segment read back by mediabunny's demuxer (third-party to the recorder's muxing):
 * its container, codecs, picture size, frame types and where its tracks end.
 */
import { ALL_FORMATS, EncodedPacketSink, FilePathSource, Input } from 'mediabunny';

export async function readSegment(path: string) {
  const input = new Input({ source: new FilePathSource(path), formats: ALL_FORMATS });
  const video = await input.getPrimaryVideoTrack();
  const audio = await input.getPrimaryAudioTrack();
  if (!video) throw new Error(`${path} has no video track`);
  const sink = new EncodedPacketSink(video);
  const types: string[] = [];
  let lastStart = 0;
  for await (const packet of sink.packets()) {
    types.push(packet.type);
    lastStart = packet.timestamp;
  }
  let audioEnd = 0;
  if (audio) {
    for await (const packet of new EncodedPacketSink(audio).packets()) {
      // The last block of a WebM has no duration of its own: the Opus frames here are 20 ms.
      audioEnd = packet.timestamp + 0.02;
    }
  }
  return {
    audioDurationS: audioEnd,
    audioCodec: audio?.codec,
    mime: await input.getMimeType(),
    codec: video.codec,
    width: video.codedWidth,
    height: video.codedHeight,
    types,
    lastFrameS: lastStart,
  };
}
