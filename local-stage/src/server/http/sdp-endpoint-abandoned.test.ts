/**
 * A WHIP or WHEP POST whose client gives up before the answer (its request timed out, its page
 * closed): the session the stage made for it ends at once, since nobody can connect to it or
 * DELETE it (it would hold its seat and its publisher's listener until the connect timeout). A
 * client that waits gets its answer and its session. The endpoint is a fake whose `create` waits
 * until the test lets it answer, so the client is gone before the answer, every time.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { SdpEndpoint, SdpSession } from '../media/sdp/sdp-session';
import { handleSdpEndpoint } from './sdp-endpoint';
import { waitUntil } from '../../testing/wait-until';

interface FakeEndpoint extends SdpEndpoint {
  /** Sessions made, by id, and whether each was ended. */
  ended: Map<string, boolean>;
  /** Resolves once `create` has been called (the offer is read). */
  created: Promise<void>;
  /** Lets `create` answer. */
  answer(): void;
}

function fakeEndpoint(name: 'whip' | 'whep'): FakeEndpoint {
  const ended = new Map<string, boolean>();
  let answer = () => undefined as void;
  const mayAnswer = new Promise<void>((resolve) => (answer = resolve));
  let markCreated = () => undefined as void;
  const created = new Promise<void>((resolve) => (markCreated = resolve));
  const session = (id: string): SdpSession => ({
    id,
    holdsToken: () => true,
    seat: undefined as unknown as SdpSession['seat'],
    iceUfrag: undefined,
    end: () => ended.set(id, true),
  });
  return {
    name,
    ended,
    created,
    answer,
    hasStage: () => true,
    async create() {
      const id = `session-${ended.size + 1}`;
      ended.set(id, false);
      markCreated();
      await mayAnswer;
      return { id, answer: 'v=0\r\n', userId: 'a-viewer' };
    },
    session: (_stageId, id) => (ended.has(id) ? session(id) : undefined),
    tokenHolder: async () => 'a-viewer',
  };
}

let server: Server | undefined;
/** Resolved when the server sees a response's connection close (its client gone, or answered). */
let responseClosed: Promise<void> = Promise.resolve();
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function serve(endpoint: SdpEndpoint): Promise<number> {
  server = createServer((request, response) => {
    responseClosed = new Promise((resolve) => response.on('close', () => resolve()));
    void handleSdpEndpoint(request, response, request.url ?? '', endpoint);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function post(port: string | number, name: string) {
  const client = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `/stage/${name}/N743AS`,
    headers: { 'content-type': 'application/sdp', authorization: 'Bearer a-token' },
  });
  const answered = new Promise<number | undefined>((resolve) => {
    client.on('response', (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    client.on('error', () => resolve(undefined));
  });
  client.end('v=0\r\n');
  return { client, answered };
}

for (const name of ['whip', 'whep'] as const) {
  it(`ends the ${name.toUpperCase()} session of a POST whose client left before its answer`, async () => {
    const endpoint = fakeEndpoint(name);
    const port = await serve(endpoint);
    const { client } = post(port, name);
    await endpoint.created;
    client.destroy();
    // The server sees the connection close, then the stage answers.
    await responseClosed;
    endpoint.answer();
    await waitUntil(() => endpoint.ended.get('session-1') === true, 'the session ended', 2_000);
  });

  it(`keeps the ${name.toUpperCase()} session of a client that waits for its answer`, async () => {
    const endpoint = fakeEndpoint(name);
    const port = await serve(endpoint);
    const { answered } = post(port, name);
    await endpoint.created;
    endpoint.answer();
    expect(await answered).toBe(201);
    expect(endpoint.ended.get('session-1')).toBe(false);
  });
}
