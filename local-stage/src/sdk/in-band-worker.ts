/**
 * The local SDK's in-band message reader (docs/decisions/0094-in-band-messages.md), run as the
 * worker of an `RTCRtpScriptTransform` on a video receiver: each encoded frame's messages (the
 * VP8 trailer, taken off before the decoder sees the frame; H.264's SEI, left in) go to the page,
 * with the transform's id, and the frame goes on.
 */
import { readSeiMessages, takeTrailer, type InBandMessage } from '../codecs/in-band';

interface ScriptTransformer {
  readable: ReadableStream<{ data: ArrayBuffer; timestamp?: number }>;
  writable: WritableStream<{ data: ArrayBuffer }>;
  options?: { id?: number };
}

/** What the page hears: the messages of one frame of transform `id`. */
export interface InBandWorkerMessage {
  id: number;
  messages: { uuid: ArrayBuffer; payload: ArrayBuffer }[];
}

const scope = self as unknown as {
  postMessage(message: InBandWorkerMessage | 'ready', transfer?: ArrayBuffer[]): void;
  addEventListener(
    type: 'rtctransform',
    listener: (event: { transformer: ScriptTransformer }) => void,
  ): void;
};

/** Whether an encoded frame is H.264 in Annex B (a VP8 frame never begins with a start code). */
function annexB(data: Uint8Array): boolean {
  return data[0] === 0 && data[1] === 0 && (data[2] === 1 || (data[2] === 0 && data[3] === 1));
}

scope.addEventListener('rtctransform', ({ transformer }) => {
  const id = transformer.options?.id ?? 0;
  transformer.readable
    .pipeThrough(
      new TransformStream({
        transform(frame, controller) {
          const data = new Uint8Array(frame.data);
          let messages: InBandMessage[];
          const taken = takeTrailer(data);
          if (taken.messages.length > 0) {
            messages = taken.messages;
            frame.data = data.slice(0, taken.frame.length).buffer;
          } else {
            messages = annexB(data) ? readSeiMessages(data) : [];
          }
          if (messages.length > 0) {
            const sent = messages.map(({ uuid, payload }) => ({
              uuid: uuid.slice().buffer,
              payload: payload.slice().buffer,
            }));
            scope.postMessage(
              { id, messages: sent },
              sent.flatMap((each) => [each.uuid, each.payload]),
            );
          }
          controller.enqueue(frame);
        },
      }),
    )
    .pipeTo(transformer.writable)
    .catch(() => undefined); // the receiver went away
});

// The page asks for in-band messages only once this runs (in-band-receiver.ts).
scope.postMessage('ready');
