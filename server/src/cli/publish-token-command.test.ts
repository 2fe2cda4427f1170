import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateParticipantTokenCommand, IVSRealTimeClient } from '@aws-sdk/client-ivs-realtime';
import { mockClient } from 'aws-sdk-client-mock';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  ParticipantTokenError,
  SYNTHETIC_CAMERA_USER_ID,
  verifyParticipantToken,
} from '@tailcam/protocol/participant-token';
import { runIvsCli } from '../ivs/ivs-cli';
import { loadStageTokenSecret } from '../secrets';
import { repoRoot, tempDir } from '../test/helpers';
import { runPublishTokenCommand, runSubscribeTokenCommand } from './publish-token-command';

const STAGE_SECRET = 'a-stage-secret-for-the-publish-token-tests';
const NOW = new Date('2026-11-23T12:00:00Z');

function setup(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const run = (...args: string[]) =>
    runPublishTokenCommand(args, {
      env: { DATA_DIR: tempDir('tailcam-publish-'), ...env },
      repoRoot,
      now: () => NOW,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
  return { out, err, run };
}

/** The value of a `NAME=value` line of standard output. */
function line(out: string[], name: string): string {
  const found = out.find((text) => text.startsWith(`${name}=`));
  if (found === undefined) throw new Error(`no ${name}= line in ${JSON.stringify(out)}`);
  return found.slice(name.length + 1);
}

async function refusal(token: string, capability: 'publish' | 'subscribe', stageId = 'N743AS') {
  try {
    await verifyParticipantToken(token, {
      secret: new TextEncoder().encode(STAGE_SECRET),
      stageId,
      capability,
      now: NOW,
    });
    return 'accepted';
  } catch (error) {
    return error instanceof ParticipantTokenError ? error.message : 'other';
  }
}

describe('npm run publish-token with the local stage', () => {
  it('prints the WHIP URL and a token that may publish to that stage and nothing else', async () => {
    const { out, err, run } = setup({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await run('N743AS')).toBe(0);
    expect(out).toHaveLength(2);
    expect(line(out, 'WHIP_URL')).toBe('http://localhost:8080/stage/whip/N743AS');
    const token = line(out, 'PUBLISH_TOKEN');
    const claims = await verifyParticipantToken(token, {
      secret: new TextEncoder().encode(STAGE_SECRET),
      stageId: 'N743AS',
      capability: 'publish',
      now: NOW,
    });
    expect(claims).toMatchObject({
      topic: 'N743AS',
      user_id: 'encoder-N743AS',
      attributes: {},
      capabilities: { allow_publish: true, allow_subscribe: false },
      whip_url: 'http://localhost:8080/stage/whip/N743AS',
    });
    expect(await refusal(token, 'subscribe')).toBe('Token does not allow subscribe');
    expect(await refusal(token, 'publish', 'N953AS')).toBe('Token is not valid for this stage');
    // 720 minutes unless told otherwise, as the ivs command.
    expect(claims.exp - claims.iat).toBe(720 * 60);
    expect(err.join('\n')).toContain(
      `PUBLISH token for N743AS: local stage at http://localhost:8080/stage, user encoder-N743AS, participant ${claims.jti}, valid until 2026-11-24T00:00:00.000Z.`,
    );
    expect(err.join('\n')).toContain('Service: WHIP, Server: the WHIP_URL');
    expect(err.join('\n')).toContain('PUBLIC_URL is not set');
  });

  it('takes the lifetime, the user id, PUBLIC_URL and PORT', async () => {
    const { out, err, run } = setup({
      STAGE_TOKEN_SECRET: STAGE_SECRET,
      PUBLIC_URL: 'https://tailcam.example/',
    });
    expect(await run('N954AS', '--minutes', '5', '--user-id', 'n954as-obs')).toBe(0);
    const claims = decodeJwt(line(out, 'PUBLISH_TOKEN'));
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.user_id).toBe('n954as-obs');
    expect(line(out, 'WHIP_URL')).toBe('https://tailcam.example/stage/whip/N954AS');
    expect(err.join('\n')).toContain('valid until 2026-11-23T12:05:00.000Z');
    expect(err.join('\n')).not.toContain('PUBLIC_URL is not set');

    const onPort = setup({ STAGE_TOKEN_SECRET: STAGE_SECRET, PORT: '9090' });
    expect(await onPort.run('N953AS')).toBe(0);
    expect(line(onPort.out, 'WHIP_URL')).toBe('http://localhost:9090/stage/whip/N953AS');
  });

  it("signs with DATA_DIR's stage secret, creating it as the API would, when none is configured", async () => {
    const dataDir = tempDir('tailcam-publish-data-');
    const { out, run } = setup({ DATA_DIR: dataDir });
    expect(await run('N743AS')).toBe(0);
    const file = join(dataDir, 'stage-token-secret');
    expect(readFileSync(file, 'utf8').length).toBeGreaterThanOrEqual(32);
    // What the API (and the stage) read from that directory verifies the token.
    const secret = await loadStageTokenSecret({ dataDir, localStage: { tokenSecret: undefined } });
    await expect(
      verifyParticipantToken(line(out, 'PUBLISH_TOKEN'), {
        secret,
        stageId: 'N743AS',
        capability: 'publish',
        now: NOW,
      }),
    ).resolves.toMatchObject({ user_id: 'encoder-N743AS' });
    // A second run keeps the secret, so earlier tokens stay valid.
    const before = readFileSync(file, 'utf8');
    expect(await setup({ DATA_DIR: dataDir }).run('N743AS')).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it.each([
    [[], 'publish-token takes one STREAM_ID'],
    [['N743AS', 'N953AS'], 'publish-token takes one STREAM_ID'],
    [['N000XX'], 'Unknown stream "N000XX": one of N743AS, N953AS, N954AS'],
    [['N743AS', '--minutes', '0'], '--minutes must be a whole number from 1 to 20160'],
    [['N743AS', '--minutes', '20161'], '--minutes must be a whole number from 1 to 20160'],
    [['N743AS', '--minutes', '1.5'], '--minutes must be a whole number from 1 to 20160'],
    [['N743AS', '--user-id', ''], '--user-id must be 1 to 128 characters'],
    [['N743AS', '--region', 'eu-west-1'], "Unknown option '--region'"],
  ])('refuses %j with exit 2 and the usage', async (args, message) => {
    const { out, err, run } = setup({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await run(...args)).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]).toContain(message);
    expect(err[0]).toContain('Usage: npm run publish-token -- STREAM_ID [options]');
  });

  it("refuses the synthetic cameras' user id, which the stage reserves for its camera process", async () => {
    const { out, err, run } = setup({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await run('N743AS', '--user-id', SYNTHETIC_CAMERA_USER_ID)).toBe(2);
    expect(out).toEqual([]);
    expect(err[0]).toContain(
      '--user-id tailcam-synthetic-camera is reserved for the synthetic cameras; choose another',
    );
  });

  it.each(['0.0.0.0', '::', '192.168.1.20', 'tailcam.internal'])(
    'needs PUBLIC_URL when HOST is %s, not loopback, and says so (both commands)',
    async (host) => {
      for (const command of [runPublishTokenCommand, runSubscribeTokenCommand]) {
        const out: string[] = [];
        const err: string[] = [];
        const code = await command(['N743AS'], {
          env: {
            DATA_DIR: tempDir('tailcam-publish-'),
            STAGE_TOKEN_SECRET: STAGE_SECRET,
            HOST: host,
          },
          repoRoot,
          now: () => NOW,
          out: (text) => out.push(text),
          err: (text) => err.push(text),
        });
        expect(code).toBe(1);
        expect(out).toEqual([]);
        expect(err.join('\n')).toContain(
          `PUBLIC_URL is required: the server listens on ${host}, beyond this machine, and the token must name the address`,
        );
      }
      const { out, run } = setup({
        STAGE_TOKEN_SECRET: STAGE_SECRET,
        HOST: host,
        PUBLIC_URL: 'https://tailcam.example',
      });
      expect(await run('N743AS')).toBe(0);
      expect(line(out, 'WHIP_URL')).toBe('https://tailcam.example/stage/whip/N743AS');
    },
  );

  it('names a bad variable and exits 1', async () => {
    const { out, err, run } = setup({ STAGE_TOKEN_SECRET: 'short' });
    expect(await run('N743AS')).toBe(1);
    expect(out).toEqual([]);
    expect(err.join('\n')).toContain('STAGE_TOKEN_SECRET: must be at least 32 characters long');
  });
});

describe('npm run publish-token with IVS', () => {
  it('prints exactly what `npm run ivs -- publish-token` prints', async () => {
    const client = new IVSRealTimeClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    });
    mockClient(client)
      .on(CreateParticipantTokenCommand)
      .resolves({
        participantToken: {
          token: 'eyJhbGciOiJLTVMifQ.publish.token',
          participantId: 'p-123',
          expirationTime: new Date('2026-11-22T14:00:00Z'),
        },
      });
    const env = {
      STAGE_PROVIDER: 'ivs',
      AWS_REGION: 'eu-west-1',
      IVS_STAGE_ARNS: ['N743AS', 'N953AS', 'N954AS']
        .map((id) => `${id}=arn:aws:ivs:eu-west-1:123456789012:stage/${id}x`)
        .join(','),
    };
    const printed = async (run: (io: Parameters<typeof runIvsCli>[1]) => Promise<number>) => {
      const lines: string[] = [];
      const code = await run({
        env,
        out: (text) => lines.push(`out ${text}`),
        err: (text) => lines.push(`err ${text}`),
        createClient: () => client,
      });
      return { code, lines };
    };
    const viaIvs = await printed((io) =>
      runIvsCli(['publish-token', 'N953AS', '--minutes', '90'], io),
    );
    const viaPublishToken = await printed((io) =>
      runPublishTokenCommand(['N953AS', '--minutes', '90'], { ...io, repoRoot }),
    );
    expect(viaIvs.code).toBe(0);
    expect(viaPublishToken).toEqual(viaIvs);
    expect(viaPublishToken.lines).toContain('out WHIP_URL=https://global.whip.live-video.net');

    const unknown = await printed((io) => runPublishTokenCommand(['N000XX'], { ...io, repoRoot }));
    expect(unknown.code).toBe(2);
    expect(unknown.lines[0]).toContain('Usage: npm run ivs --');
  });
});

describe('npm run subscribe-token', () => {
  function subscribe(env: Record<string, string>) {
    const out: string[] = [];
    const err: string[] = [];
    const run = (...args: string[]) =>
      runSubscribeTokenCommand(args, {
        env: { DATA_DIR: tempDir('tailcam-subscribe-'), ...env },
        repoRoot,
        now: () => NOW,
        out: (text) => out.push(text),
        err: (text) => err.push(text),
      });
    return { out, err, run };
  }

  it('prints the WHEP URL and a token that may watch that stage and not publish, for an operator', async () => {
    const { out, err, run } = subscribe({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await run('N954AS', '--minutes', '30')).toBe(0);
    expect(line(out, 'WHEP_URL')).toBe('http://localhost:8080/stage/whep/N954AS');
    const token = line(out, 'SUBSCRIBE_TOKEN');
    const claims = await verifyParticipantToken(token, {
      secret: new TextEncoder().encode(STAGE_SECRET),
      stageId: 'N954AS',
      capability: 'subscribe',
      now: NOW,
    });
    expect(claims.user_id).toMatch(/^operator-player-[0-9a-f]{8}$/);
    expect(claims.capabilities).toEqual({ allow_publish: false, allow_subscribe: true });
    expect(claims.exp - claims.iat).toBe(30 * 60);
    expect(await refusal(token, 'publish', 'N954AS')).toBe('Token does not allow publish');
    expect(err[0]).toMatch(
      /^SUBSCRIBE token for N954AS: local stage at http:\/\/localhost:8080\/stage, user operator-player-/,
    );

    const named = subscribe({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await named.run('N954AS', '--user-id', 'hangar-tv')).toBe(0);
    expect(decodeJwt(line(named.out, 'SUBSCRIBE_TOKEN')).user_id).toBe('operator-hangar-tv');
  });

  it('refuses unknown aircraft, and the ivs provider, which has no WHEP playback', async () => {
    const { err, run } = subscribe({ STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await run('N0')).toBe(2);
    expect(err[0]).toContain('Unknown stream "N0"');
    const ivs = subscribe({ STAGE_PROVIDER: 'ivs', STAGE_TOKEN_SECRET: STAGE_SECRET });
    expect(await ivs.run('N743AS')).toBe(2);
    expect(ivs.err.join('\n')).toContain('Amazon IVS has no WHEP playback of stages');
  });
});
