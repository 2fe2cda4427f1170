import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogFormat } from '@tailcam/protocol/log-line';
import { createLogger } from './logger';
import { build, CLIENT_ID } from './test/helpers';

function capture(level: string, format: LogFormat) {
  const lines: string[] = [];
  const logger = createLogger(level, {
    format,
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  });
  return { logger, lines };
}

describe('logs on a terminal (LOG_FORMAT=pretty)', () => {
  it('are one readable line per record through pino-pretty: time, level, service, message, fields', () => {
    const { logger, lines } = capture('info', 'pretty');
    logger.info({ url: 'http://localhost:8080', stageProvider: 'local' }, 'Tailcam API listening');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api Tailcam API listening \{"url":"http:\/\/localhost:8080","stageProvider":"local"\}$/,
      ),
    ]);
  });

  it('never show a password, a token or an Authorization header', async () => {
    const { logger, lines } = capture('trace', 'pretty');
    const { app, addUser, login } = await build({ deps: { logger } });
    await addUser('alice', 'correct horse');
    const token = await login('alice', 'correct horse');
    const response = await app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: `Bearer ${token}` },
      payload: { stageId: 'N743AS', clientId: CLIENT_ID },
    });
    const participantToken = response.json<{ token: string }>().token;
    logger.info({ password: 'correct horse', token: 'abc', secret: 'hush', user: { token: 'x' } });
    const text = lines.join('\n');
    expect(text).toMatch(/request completed POST \/api\/token 200 \d+ ms/);
    expect(text).not.toContain('correct horse');
    expect(text).not.toContain(token);
    expect(text).not.toContain(participantToken);
    expect(text).not.toContain('hush');
    expect(lines.at(-1)).toMatch(
      /\{"password":"\[redacted\]","token":"\[redacted\]","secret":"\[redacted\]","user":\{"token":"\[redacted\]"\}\}$/,
    );
  });
});

describe('log lines while LOG_FORMAT is unset', () => {
  const isTTY = process.stdout.isTTY;
  afterEach(() => {
    process.stdout.isTTY = isTTY;
  });

  it.each([
    [true, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api ready$/],
    [false, /^\{"level":30,"time":\d+,"service":"tailcam-api","msg":"ready"\}$/],
  ])('follow the terminal (standard output a terminal: %s)', (terminal, line) => {
    process.stdout.isTTY = terminal;
    const lines: string[] = [];
    const logger = createLogger('info', {
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    });
    logger.info('ready');
    expect(lines).toEqual([expect.stringMatching(line)]);
  });
});

describe('query strings in request lines', () => {
  it.each(['json', 'pretty'] as const)(
    'keep their names and lose their values (LOG_FORMAT=%s)',
    async (format) => {
      const { logger, lines } = capture('debug', format);
      const { app } = await build({ deps: { logger } });
      await app.inject({ url: '/api/nothing?token=s3cr3t-value&stageId=N743AS&token=again' });
      await app.inject({ url: '/api/health?access_token=s3cr3t-value' });
      await app.inject({ url: '/player/N743AS?x=s3cr3t-value#frag' });
      await app.inject({ url: '/api/%ff?token=s3cr3t-value' });
      const text = lines.join('\n');
      expect(text).not.toContain('s3cr3t');
      expect(text).not.toContain('again');
      expect(text).toContain('/api/nothing?token=[redacted]&stageId=[redacted]&token=[redacted]');
      expect(text).toContain('/api/health?access_token=[redacted]');
      expect(text).toContain('/player/N743AS?x=[redacted]');
    },
  );
});

describe('request lines at the default level', () => {
  it('name the API calls, not the health polls, static files or SDK', async () => {
    const { logger, lines } = capture('info', 'json');
    const { app } = await build({ deps: { logger } });
    for (const url of ['/api/health', '/api/ready', '/', '/favicon.svg', '/sdk/stage.js']) {
      expect((await app.inject({ url })).statusCode).toBeLessThan(400);
    }
    expect(lines).toEqual([]);
    await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'x', password: 'y' },
    });
    await app.inject({ url: '/no-such-file.png' });
    const requests = lines
      .map((line) => JSON.parse(line) as { msg: string; req?: { url: string }; res?: object })
      .filter((record) => record.msg === 'request completed')
      .map((record) => `${record.req?.url} ${JSON.stringify(record.res)}`);
    expect(requests).toEqual([
      '/api/login {"statusCode":401}',
      '/no-such-file.png {"statusCode":404}',
    ]);
  });

  it('show every request at debug', async () => {
    const { logger, lines } = capture('debug', 'pretty');
    const { app } = await build({ deps: { logger } });
    await app.inject({ url: '/api/health' });
    expect(lines).toEqual([
      expect.stringMatching(/\] DEBUG: api incoming request GET \/api\/health$/),
      expect.stringMatching(/\] DEBUG: api request completed GET \/api\/health 200 \d+ ms$/),
    ]);
  });
});
