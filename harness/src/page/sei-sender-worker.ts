/**
 * The worker of the publisher page's `RTCRtpScriptTransform` on its video sender (sei-sender.ts):
 * each encoded H.264 frame leaves with the waiting in-band messages as SEI user_data_unregistered
 * NAL units before its first slice, each on the next frame and on its repeat count of frames
 * after, as the IVS Web Broadcast SDK's `insertSeiMessage` sends them (codecs/in-band.ts). A
 * frame that is not H.264 (VP8 has no SEI) goes on as it is.
 */
import { InBandQueue, IVS_SEI_UUID, withSeiMessages } from '@tailcam/local-stage/codecs/in-band';

interface ScriptTransformer {
  readable: ReadableStream<{ data: ArrayBuffer }>;
  writable: WritableStream<{ data: ArrayBuffer }>;
}

/** What the page posts: a payload the rules let through, and its repeat count. */
export interface SeiSenderMessage {
  payload: ArrayBuffer;
  repeatCount: number;
}

const scope = self as unknown as {
  addEventListener(
    type: 'rtctransform',
    listener: (event: { transformer: ScriptTransformer }) => void,
  ): void;
  addEventListener(type: 'message', listener: (event: { data: SeiSenderMessage }) => void): void;
};

const queue = new InBandQueue();

/** Whether an encoded frame is H.264 in Annex B (a VP8 frame never begins with a start code). */
function annexB(data: Uint8Array): boolean {
  return data[0] === 0 && data[1] === 0 && (data[2] === 1 || (data[2] === 0 && data[3] === 1));
}

scope.addEventListener('message', ({ data }) => {
  queue.add({ uuid: IVS_SEI_UUID, payload: new Uint8Array(data.payload) }, data.repeatCount);
});

scope.addEventListener('rtctransform', ({ transformer }) => {
  transformer.readable
    .pipeThrough(
      new TransformStream({
        transform(frame, controller) {
          const data = new Uint8Array(frame.data);
          const messages = queue.next();
          if (messages.length > 0 && annexB(data)) {
            frame.data = withSeiMessages(data, messages).slice().buffer;
          }
          controller.enqueue(frame);
        },
      }),
    )
    .pipeTo(transformer.writable)
    .catch(() => undefined); // the sender went away
});
