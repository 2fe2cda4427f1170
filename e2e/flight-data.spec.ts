/**
 * Flight data in the picture (docs/flight-data.md, decision 0094), in Chromium, on the shared
 * product: the synthetic camera's flight, as MISB ST 0601 packets the stage carries with its
 * frames, reaches the local SDK's `STAGE_STREAM_SEI_MESSAGE_RECEIVED` as IVS's `{ uuid, payload }`,
 * and each packet is where the aircraft was at the instant it names.
 */
import { figuresFromTelemetry } from '@tailcam/protocol/flight-data/figures';
import { flightAt } from '@tailcam/protocol/flight-data/flight';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import { expect, signInByApi, test } from './support/fixtures';

const STAGE = 'N953AS';
const IVS_SEI_UUID = '9e504ea5ee5a4f02949fb033a3768da2';

test('the SDK hands the camera’s flight data over as IVS’s in-band messages, each true to its instant', async ({
  page,
}) => {
  await signInByApi(page);
  await page.goto('/home');
  const received = await page.evaluate(
    async ({ stageId, wanted }) => {
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
      const until = Date.now() + 15_000;
      while (messages.length < wanted && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const played = video.currentTime;
      stage.leave();
      return { messages, played };
    },
    { stageId: STAGE, wanted: 4 },
  );

  // The picture played: the trailer came off before the decoder.
  expect(received.played).toBeGreaterThan(0.5);
  expect(received.messages.length).toBeGreaterThanOrEqual(4);
  const instants = new Set<number>();
  for (const message of received.messages) {
    expect(message.uuid).toBe(IVS_SEI_UUID);
    expect(message.uuidBytes).toBe(16);
    const decoded = decodeFlightData(Uint8Array.from(Buffer.from(message.payload, 'hex')));
    if (!decoded.ok) throw new Error(`not a 0601 packet: ${decoded.message}`);
    const at = decoded.telemetry.captureTimeMs ?? 0;
    instants.add(Math.round(at));
    const shown = figuresFromTelemetry(decoded.telemetry);
    const truth = flightAt(STAGE, at);
    // As 0601's scalings keep them: altitude to ~0.3 m, speed to 1 m/s.
    expect(Math.abs((shown.altitudeFt ?? NaN) - truth.altitudeFt)).toBeLessThan(3);
    expect(Math.abs((shown.groundSpeedKt ?? NaN) - truth.groundSpeedKt)).toBeLessThan(2);
  }
  // A packet a second, each repeated on the next frames: at least two distinct instants.
  expect(instants.size).toBeGreaterThanOrEqual(2);
});
