/** Flight data as a page reads it from the stage SDK (e2e specs and the bench; docs/flight-data.md). */

/** What `readInBandMessagesInPage` gives back. */
export interface InBandMessagesRead {
  messages: { uuid: string; payload: string; uuidBytes: number }[];
  /** The video's currentTime at the end: it played. */
  played: number;
  /** Seconds from the join to the end. */
  seconds: number;
}

/**
 * The flight data the local SDK hands a page (decision 0094), read in the browser: a Stage joined
 * with the page's login token whose strategy asks for in-band messages, its video played, until
 * `wanted` messages of two samples or more came and the video played a second (or `untilMs`, 15 s
 * by default). Runs in the page (Playwright's or puppeteer's `evaluate`).
 */
export const readInBandMessagesInPage = async ({
  stageId,
  wanted,
  untilMs = 15_000,
}: {
  stageId: string;
  wanted: number;
  untilMs?: number;
}): Promise<InBandMessagesRead> => {
  const hex = (buffer: ArrayBuffer) =>
    [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  const response = await fetch('/api/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${localStorage.getItem('token') ?? ''}`,
    },
    body: JSON.stringify({ stageId, clientId: crypto.randomUUID() }),
  });
  const { token } = (await response.json()) as { token: string };
  const sdk = (window as unknown as { IVSBroadcastClient: Record<string, never> })
    .IVSBroadcastClient as unknown as {
    Stage: new (
      token: string,
      strategy: unknown,
    ) => {
      on(event: string, listener: (...args: never[]) => void): void;
      join(): Promise<void>;
      leave(): void;
    };
    StageEvents: Record<string, string>;
  };
  const stage = new sdk.Stage(token, {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => ['video'],
    subscribeConfiguration: () => ({ inBandMessaging: { enabled: true } }),
  });
  const messages: { uuid: string; payload: string; uuidBytes: number }[] = [];
  const video = document.createElement('video');
  video.muted = true;
  document.body.append(video);
  stage.on(sdk.StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED ?? '', ((
    _participant: unknown,
    message: { uuid: ArrayBuffer; payload: ArrayBuffer },
  ) => {
    messages.push({
      uuid: hex(message.uuid),
      payload: hex(message.payload),
      uuidBytes: message.uuid.byteLength,
    });
  }) as never);
  stage.on(sdk.StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED ?? '', ((
    _participant: unknown,
    streams: { mediaStreamTrack: MediaStreamTrack }[],
  ) => {
    const track = streams[0]?.mediaStreamTrack;
    if (track) video.srcObject = new MediaStream([track]);
    void video.play();
  }) as never);
  await stage.join();
  const joinedAt = performance.now();
  const until = Date.now() + untilMs;
  // Also until the picture has played a second: the messages (the key frame's among them) may
  // all come before it. And until two samples came (a sample a second, each repeated on the next
  // frames and on a key frame: `wanted` messages may all be one sample's).
  const samples = () => new Set(messages.map((message) => message.payload)).size;
  while (
    (messages.length < wanted || video.currentTime < 1 || samples() < 2) &&
    Date.now() < until
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const played = video.currentTime;
  stage.leave();
  return { messages, played, seconds: (performance.now() - joinedAt) / 1000 };
};

/** What `readInBandMessagesInPage` gives back. */
export interface InBandMessagesRead {
  messages: { uuid: string; payload: string; uuidBytes: number }[];
  /** The video's currentTime at the end: it played. */
  played: number;
  /** Seconds from the join to the end. */
  seconds: number;
}
