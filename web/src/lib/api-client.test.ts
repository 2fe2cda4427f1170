import { describe, expect, it, vi } from 'vitest';
import { ApiError, postJson, textField } from './api-client';

const tokenAnswer = (answer: unknown) => {
  const token = textField(answer, 'token');
  return token === undefined ? undefined : { token };
};

function answerWith(response: () => Response) {
  const fetchSpy = vi.fn((_url: string, _init: RequestInit) => Promise.resolve(response()));
  vi.stubGlobal('fetch', fetchSpy);
  return fetchSpy;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });

/** Like the browser's fetch, it rejects with the signal's reason once the signal aborts. */
function fetchThatWaitsForAbort() {
  vi.stubGlobal(
    'fetch',
    vi.fn(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        }),
    ),
  );
}

async function failureOf(call: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw new Error(`not an ApiError: ${String(error)}`);
  return error;
}

describe('postJson', () => {
  it('posts the body as JSON with the given headers and returns the parsed answer', async () => {
    const fetchSpy = answerWith(() => json(200, { token: 'abc', extra: 1 }));
    const signal = new AbortController().signal;

    const answer = await postJson('/api/token', { stageId: 'N743AS' }, tokenAnswer, {
      headers: { Authorization: 'Bearer login-token' },
      signal,
    });

    expect(answer).toEqual({ token: 'abc' });
    expect(fetchSpy).toHaveBeenCalledWith('/api/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer login-token' },
      body: '{"stageId":"N743AS"}',
      signal,
    });
  });

  it("gives a refusal's status and the error text of its body", async () => {
    answerWith(() => json(404, { error: 'Unknown stream: N1' }));
    const error = await failureOf(postJson('/api/token', {}, tokenAnswer));
    expect(error.status).toBe(404);
    expect(error.serverMessage).toBe('Unknown stream: N1');
  });

  it.each<[string, () => Response]>([
    ['an HTML page', () => new Response('<html>Bad gateway</html>', { status: 502 })],
    ['an empty body', () => new Response(null, { status: 500 })],
    ['a blank error', () => json(401, { error: '  ' })],
    ['an error that is not text', () => json(401, { error: { code: 7 } })],
    ['a JSON array', () => json(400, ['error'])],
  ])('gives a refusal no server text when its body is %s', async (_name, response) => {
    answerWith(response);
    const error = await failureOf(postJson('/api/token', {}, tokenAnswer));
    expect(error.status).toBe(response().status);
    expect(error.serverMessage).toBeUndefined();
  });

  it('fails with no status when the server cannot be reached', async () => {
    const offline = new TypeError('Failed to fetch');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(offline)),
    );
    const error = await failureOf(postJson('/api/login', {}, tokenAnswer));
    expect(error.status).toBeUndefined();
    expect(error.serverMessage).toBeUndefined();
    expect(error.cause).toBe(offline);
  });

  it.each<[string, () => Response]>([
    ['has no token', () => json(200, { user: 'pilot' })],
    ['has a blank token', () => json(200, { token: ' ' })],
    ['is not JSON', () => new Response('<html>', { status: 200 })],
    ['is a JSON array', () => json(200, [{ token: 'abc' }])],
  ])('fails when an OK answer %s, without taking its error text', async (_name, response) => {
    answerWith(response);
    const error = await failureOf(postJson('/api/login', {}, tokenAnswer));
    expect(error.status).toBe(200);
    expect(error.serverMessage).toBeUndefined();
  });

  it('rejects with the reason of a cancelled call, not an ApiError', async () => {
    fetchThatWaitsForAbort();
    const controller = new AbortController();
    const call = postJson('/api/token', {}, tokenAnswer, { signal: controller.signal });
    const reason = new DOMException('The player was left', 'AbortError');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it('rejects with the reason when the call is cancelled while its answer is read', async () => {
    const controller = new AbortController();
    const reason = new DOMException('The player was left', 'AbortError');
    answerWith(() => {
      const response = json(200, { token: 'abc' });
      vi.spyOn(response, 'json').mockImplementation(() => {
        controller.abort(reason);
        return Promise.reject(reason);
      });
      return response;
    });
    await expect(
      postJson('/api/token', {}, tokenAnswer, { signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
