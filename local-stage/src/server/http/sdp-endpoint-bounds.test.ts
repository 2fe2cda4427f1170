/**
 * The WHIP and WHEP doors, bounded (decision 0050): property-based fuzzing of methods, paths, headers,
 * content types and bodies (real offers mutated line by line too) never gets a 5xx or a stack
 * trace and leaves no session behind; a 1 MB body is refused before it is read whole; 250
 * offers that never complete ICE (1,000 with TAILCAM_LONG_TESTS=1, a soak) are reaped and leave
 * no session, socket or memory behind.
 */
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageStatsSchema } from '../../control';
import type { RunningStage } from '../start';
import { startTestStage } from '../../testing/test-stage';
import { gstreamerOffer } from '../../testing/whip-captures';
import { testParticipantToken } from '../../testing/participant-tokens';
import { rawSender, type RawAnswer } from '../../testing/raw-request';
import { waitUntil } from '../../testing/wait-until';

const secret = new TextEncoder().encode('a-bounds-test-secret-of-enough-length-0123');
const CONNECT_TIMEOUT_MS = 400;
/** Never-connecting offers: 250, about four times the connecting bound (the long run: 1,000). */
const STRANDED_OFFERS = process.env.TAILCAM_LONG_TESTS === '1' ? 1_000 : 250;
let running: RunningStage;

/** The offer simple-whip-client (GStreamer) sent, from the captured request. */
const realOffer = gstreamerOffer();

const send = rawSender(() => running.url);

function token(
  capabilities: { publish: boolean; subscribe: boolean },
  stageId = 'N743AS',
  userId = `user-${crypto.randomUUID()}`,
): Promise<string> {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: `p-${crypto.randomUUID()}`,
    stageId,
    userId,
    capabilities,
    ttlSeconds: 600,
  });
}

async function stats() {
  const answer = await send('GET', '/_stats', {});
  return stageStatsSchema.parse(JSON.parse(answer.text));
}

const nothingConnecting = async () => {
  const { stages, whepSessions } = await stats();
  return (
    whepSessions === 0 &&
    Object.values(stages).every((stage) => stage.connectingPublishers === 0 && !stage.publisher)
  );
};

/**
 * An answer a client can act on: never a 5xx but the documented 503 "try again" with its
 * `Retry-After` (nothing on air, the stage busy), a JSON reason for a 4xx, nothing internal.
 */
function expectClearAnswer(answer: RawAnswer, method = 'POST'): void {
  if (answer.status === 503) expect(answer.headers['retry-after'], answer.text).toBeDefined();
  else expect(answer.status, answer.text).toBeLessThan(500);
  // A HEAD answer has no body by definition: its status says it all.
  if (answer.status >= 400 && method !== 'HEAD') {
    expect(JSON.parse(answer.text)).toEqual({ error: expect.stringMatching(/\w/) });
  }
  expect(answer.text).not.toMatch(/\bat .+\.[jt]s:\d+|\/work\/|node_modules|Error: /);
}

beforeAll(async () => {
  running = await startTestStage({
    secret, // This file fuzzes and floods the doors, not the admission rule: room for 32 at a time.
    limits: {
      maxConnectingPublishers: 64,
      connectingPerAircraft: 64,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    },
  });
});

afterAll(async () => {
  await running?.close();
});

describe('the WHIP and WHEP doors under fuzzing', { timeout: 120_000 }, () => {
  const methods = fc.constantFrom('POST', 'PATCH', 'DELETE', 'GET', 'PUT', 'OPTIONS', 'HEAD');
  const paths = fc.oneof(
    fc.constantFrom('whip', 'whep').chain((door) =>
      fc.oneof(
        fc.constant(`/stage/${door}/N743AS`),
        fc.constant(`/stage/${door}`),
        fc.uuid().map((id) => `/stage/${door}/N743AS/${id}`),
        fc.string({ maxLength: 80 }).map((tail) => `/stage/${door}/${encodeURIComponent(tail)}`),
        fc.constantFrom(`/stage/${door}/N743AS/..%2f..%2f_faults`, `/stage/${door}/%ff`),
      ),
    ),
  );
  const contentTypes = fc.oneof(
    fc.constantFrom(
      'application/sdp',
      'application/trickle-ice-sdpfrag',
      'application/json',
      'text/plain',
      'application/sdp; charset=utf-8',
      '',
    ),
    fc.string({ maxLength: 40 }),
  );
  const bodies = fc.oneof(
    fc.string({ maxLength: 2_000 }),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(realOffer),
  );

  it('answers every request with a clear status, never a 5xx, and leaves no session', async () => {
    const viewerToken = await token({ publish: false, subscribe: true });
    const publisherToken = await token({ publish: true, subscribe: false });
    const authorizations = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(`Bearer ${viewerToken}`, `Bearer ${publisherToken}`, 'Bearer', 'Basic x'),
      fc.string({ maxLength: 200 }).map((text) => `Bearer ${text}`),
    );
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(
        methods,
        paths,
        contentTypes,
        authorizations,
        bodies,
        async (method, path, contentType, authorization, body) => {
          const headers: Record<string, string> = {};
          // Header values a client could not send at all (control characters) are left out.
          if (contentType !== '' && !/[^\t\x20-\x7e]/.test(contentType)) {
            headers['content-type'] = contentType;
          }
          if (authorization && !/[^\t\x20-\x7e]/.test(authorization)) {
            headers.authorization = authorization;
          }
          // A body always with its length, as any HTTP client sends it (none on GET and HEAD).
          const withBody = method !== 'GET' && method !== 'HEAD';
          if (withBody) headers['content-length'] = String(Buffer.byteLength(body));
          const answer = await send(method, path, headers, withBody ? body : undefined);
          requests += 1;
          expectClearAnswer(answer, method);
          // The real offer with a real token can connect: end what it made.
          const location = answer.headers.location;
          if (answer.status === 201 && typeof location === 'string') {
            await send('DELETE', location, headers);
          }
        },
      ),
      { numRuns: 400, interruptAfterTimeLimit: 40_000 },
    );
    expect(requests).toBeGreaterThan(100);
    await waitUntil(nothingConnecting, 'no session left', 20_000, 50);
  });

  it('takes real offers mutated line by line with a clear answer each time', async () => {
    const lines = realOffer.split('\r\n');
    const mutation = fc.oneof(
      fc.nat(lines.length - 1).map((index) => (all: string[]) => all.filter((_, i) => i !== index)),
      fc
        .nat(lines.length - 1)
        .map((index) => (all: string[]) => [
          ...all.slice(0, index + 1),
          all[index] ?? '',
          ...all.slice(index + 1),
        ]),
      fc.tuple(fc.nat(lines.length - 1), fc.string({ maxLength: 60 })).map(
        ([index, text]) =>
          (all: string[]) =>
            all.map((line, i) => (i === index ? text : line)),
      ),
      fc.tuple(fc.nat(lines.length - 1), fc.constantFrom('0', '-1', '99999999999', 'x', '')).map(
        ([index, number]) =>
          (all: string[]) =>
            all.map((line, i) => (i === index ? line.replace(/\d+/g, number) : line)),
      ),
    );
    const publisherToken = await token({ publish: true, subscribe: false });
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
        const offer = mutations.reduce((all, mutate) => mutate(all), lines).join('\r\n');
        const answer = await send(
          'POST',
          '/stage/whip/N743AS',
          { 'content-type': 'application/sdp', authorization: `Bearer ${publisherToken}` },
          offer,
        );
        expectClearAnswer(answer);
        const location = answer.headers.location;
        if (answer.status === 201 && typeof location === 'string') {
          await send('DELETE', location, { authorization: `Bearer ${publisherToken}` });
        }
      }),
      { numRuns: 300, interruptAfterTimeLimit: 40_000 },
    );
    await waitUntil(nothingConnecting, 'no session left', 20_000, 50);
  });
});

describe('the WHIP door, bounded', { timeout: 180_000 }, () => {
  it('refuses a 1 MB offer with 413 before it has been sent whole', async () => {
    const publisherToken = await token({ publish: true, subscribe: false });
    const { hostname, port } = new URL(running.url);
    const total = 1024 * 1024;
    let sent = 0;
    const answer = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      const outgoing = request(
        {
          host: hostname,
          port,
          path: '/stage/whip/N743AS',
          method: 'POST',
          headers: {
            'content-type': 'application/sdp',
            'content-length': String(total),
            authorization: `Bearer ${publisherToken}`,
          },
        },
        (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, sent });
          outgoing.destroy();
        },
      );
      outgoing.on('error', (error) => {
        if (sent < total) return; // the stage closed the rest of the upload: expected
        reject(error);
      });
      // 8 KiB at a time, slowly: the answer must come long before the megabyte is in.
      const chunk = Buffer.alloc(8 * 1024, 'a');
      const pump = () => {
        if (sent >= total || outgoing.destroyed) return;
        sent += chunk.length;
        outgoing.write(chunk);
        setTimeout(pump, 5);
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(answer.sent).toBeLessThan(256 * 1024);
    expect(await nothingConnecting()).toBe(true);
  });

  it(`reaps ${STRANDED_OFFERS.toLocaleString('en')} offers that never complete ICE, and keeps no session, socket or memory`, async () => {
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const filesBefore = openFiles();
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    let answered = 0;
    let busy = 0;
    // 32 encoders at a time (the stage takes 64 connecting here); each offers and never connects.
    const offerUntilTaken = async (index: number) => {
      const publisherToken = await token(
        { publish: true, subscribe: false },
        ['N743AS', 'N953AS', 'N954AS'][index % 3],
      );
      for (;;) {
        const answer = await send(
          'POST',
          `/stage/whip/${['N743AS', 'N953AS', 'N954AS'][index % 3]}`,
          { 'content-type': 'application/sdp', authorization: `Bearer ${publisherToken}` },
          realOffer,
        );
        if (answer.status === 201) return void (answered += 1);
        expect(answer.status, answer.text).toBe(503); // too many connecting: a clear "later"
        busy += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < STRANDED_OFFERS) await offerUntilTaken(next++);
      }),
    );
    await waitUntil(nothingConnecting, 'every session reaped', 30_000, 50);
    const seconds = (Date.now() - started) / 1000;
    const filesAfter = openFiles();
    const rssAfter = process.memoryUsage().rss;
    console.log(
      `${STRANDED_OFFERS.toLocaleString('en')} never-connecting offers: answered ${answered}, told to wait ${busy} times, ` +
        `${seconds.toFixed(1)} s; open files ${filesBefore} → ${filesAfter}; ` +
        `RSS ${Math.round(rssBefore / 2 ** 20)} → ${Math.round(rssAfter / 2 ** 20)} MiB`,
    );
    expect(answered).toBe(STRANDED_OFFERS);
    // Every session's UDP socket is closed again (a few descriptors of the test's own may move).
    expect(filesAfter - filesBefore).toBeLessThan(10);
    expect(rssAfter - rssBefore).toBeLessThan(200 * 2 ** 20);
    const after = await stats();
    expect(after.peerConnections).toBe(0);
  });
});
