/**
 * The operator's token commands. `npm run publish-token -- STREAM_ID`: the WHIP URL and a PUBLISH
 * token for that aircraft's encoder, whichever the stage provider. `npm run subscribe-token --
 * STREAM_ID` (local stage only): the WHEP URL and a SUBSCRIBE token for a third-party player
 * (docs/decisions/0055-whep-playback.md); its user id always starts `operator-`. With `ivs` it is `npm run ivs -- publish-token` (the same
 * code, the same output). With `local` it signs, offline, a participant token as the API signs a
 * viewer's (the stage's secret, the same claims) but with the PUBLISH capability only, for that
 * one stage. As the ivs command does, the two machine-readable lines (`WHIP_URL=...`,
 * `PUBLISH_TOKEN=...`) go to standard output and what a person reads to standard error; bad usage
 * exits 2, any other failure 1, each in one sentence.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  issueParticipantToken,
  localStageEndpoints,
  SYNTHETIC_CAMERA_USER_ID,
} from '@tailcam/protocol/participant-token';
import { STREAM_IDS, isStreamId } from '@tailcam/protocol/streams';
import { ConfigError } from '../config';
import { parsePublishTokenConfig, type PublishTokenConfig } from './cli-config';
import { isLoopbackHost } from '../http/public-url';
import { runIvsCli, type IvsCliIo } from '../ivs/ivs-cli';
import { DEFAULT_PUBLISH_TOKEN_MINUTES, MAX_TOKEN_MINUTES } from '../ivs/stages';
import { loadStageTokenSecret } from '../secrets';

export const PUBLISH_TOKEN_USAGE = `Usage: npm run publish-token -- STREAM_ID [options]

Issues a PUBLISH token for that aircraft's encoder (${STREAM_IDS.join(', ')}) and prints the
WHIP URL and the token to give it (e.g. OBS, Service: WHIP). With STAGE_PROVIDER=ivs this is
\`npm run ivs -- publish-token\`, which also takes --region and --app.

Options:
  --minutes N     token lifetime, 1 to ${MAX_TOKEN_MINUTES} (default: ${DEFAULT_PUBLISH_TOKEN_MINUTES})
  --user-id ID    the participant's user id (default: encoder-STREAM_ID)

With the local stage the token is signed with the stage's secret (STAGE_TOKEN_SECRET, or
DATA_DIR/stage-token-secret) and names this server at PUBLIC_URL (else http://localhost:PORT).`;

export interface PublishTokenIo extends IvsCliIo {
  repoRoot: string;
  now?: () => Date;
}

class UsageError extends Error {}

export const SUBSCRIBE_TOKEN_USAGE = `Usage: npm run subscribe-token -- STREAM_ID [options]

Issues a SUBSCRIBE token for a third-party WHEP player of that aircraft (${STREAM_IDS.join(', ')})
and prints the WHEP URL and the token to give it. Local stage only: Amazon IVS has no WHEP
playback of stages.

Options:
  --minutes N     token lifetime, 1 to ${MAX_TOKEN_MINUTES} (default: ${DEFAULT_PUBLISH_TOKEN_MINUTES})
  --user-id ID    the participant's user id, after "operator-" (default: operator-player-XXXXXXXX)

The token is signed with the stage's secret (STAGE_TOKEN_SECRET, or DATA_DIR/stage-token-secret)
and names this server at PUBLIC_URL (else http://localhost:PORT).`;

interface PublishTokenRequest {
  streamId: string;
  minutes: number;
  userId: string;
}

/** What tells the two commands apart. */
interface TokenKind {
  command: 'publish-token' | 'subscribe-token';
  usage: string;
  capabilities: { publish: boolean; subscribe: boolean };
  capability: 'PUBLISH' | 'SUBSCRIBE';
  defaultUserId(streamId: string): string;
  /** The user id the token carries, from the one given. */
  userIdFrom(given: string): string;
  urlName: 'WHIP_URL' | 'WHEP_URL';
  url(stageBaseUrl: string, streamId: string): string;
  /** Who the token is for, and how they use it (printed to standard error). */
  holder: string;
  howTo: string;
}

const PUBLISH: TokenKind = {
  command: 'publish-token',
  usage: PUBLISH_TOKEN_USAGE,
  capabilities: { publish: true, subscribe: false },
  capability: 'PUBLISH',
  defaultUserId: (streamId) => `encoder-${streamId}`,
  userIdFrom: (given) => given,
  urlName: 'WHIP_URL',
  // The token's own claim, so that the printed URL is the one the stage was told of.
  url: (stageBaseUrl, streamId) => localStageEndpoints(stageBaseUrl, streamId).whipUrl,
  holder: 'an encoder',
  howTo:
    'Give the encoder the WHIP URL and the token as its bearer token. In OBS (30 or later): ' +
    'Settings > Stream > Service: WHIP, Server: the WHIP_URL, Bearer Token: the PUBLISH_TOKEN.',
};

const SUBSCRIBE: TokenKind = {
  command: 'subscribe-token',
  usage: SUBSCRIBE_TOKEN_USAGE,
  capabilities: { publish: false, subscribe: true },
  capability: 'SUBSCRIBE',
  defaultUserId: () => `operator-player-${randomUUID().slice(0, 8)}`,
  userIdFrom: (given) => (given.startsWith('operator-') ? given : `operator-${given}`),
  urlName: 'WHEP_URL',
  url: (stageBaseUrl, streamId) =>
    new URL(`whep/${encodeURIComponent(streamId)}`, `${stageBaseUrl}/`).toString(),
  holder: 'a player',
  howTo:
    'Give the WHEP player the WHEP URL and the token as its bearer token (e.g. ' +
    "@eyevinn/webrtc-player: type 'whep', authorization: Bearer SUBSCRIBE_TOKEN).",
};

function parseRequest(args: string[], kind: TokenKind): PublishTokenRequest | 'help' {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args,
        allowPositionals: true,
        options: {
          minutes: { type: 'string' },
          'user-id': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  })();
  if (values.help) return 'help';
  const [streamId, ...extra] = positionals;
  if (streamId === undefined || extra.length > 0) {
    throw new UsageError(`${kind.command} takes one STREAM_ID`);
  }
  if (!isStreamId(streamId)) {
    throw new UsageError(`Unknown stream "${streamId}": one of ${STREAM_IDS.join(', ')}`);
  }
  const minutesText = values.minutes;
  const minutes =
    minutesText === undefined
      ? DEFAULT_PUBLISH_TOKEN_MINUTES
      : /^\d+$/.test(minutesText)
        ? Number(minutesText)
        : NaN;
  if (!(minutes >= 1 && minutes <= MAX_TOKEN_MINUTES)) {
    throw new UsageError(`--minutes must be a whole number from 1 to ${MAX_TOKEN_MINUTES}`);
  }
  const given = values['user-id'];
  const userId = given === undefined ? kind.defaultUserId(streamId) : kind.userIdFrom(given);
  if (userId.length < 1 || userId.length > 128) {
    throw new UsageError('--user-id must be 1 to 128 characters');
  }
  if (userId === SYNTHETIC_CAMERA_USER_ID) {
    throw new UsageError(
      `--user-id ${SYNTHETIC_CAMERA_USER_ID} is reserved for the synthetic cameras; choose another`,
    );
  }
  return { streamId, minutes, userId };
}

async function issueLocal(
  request: PublishTokenRequest,
  kind: TokenKind,
  config: PublishTokenConfig,
  io: PublishTokenIo,
): Promise<void> {
  const secret = await loadStageTokenSecret(config);
  const now = io.now?.() ?? new Date();
  const participantId = randomUUID();
  const stageBaseUrl = `${config.publicOrigin}/stage`;
  const token = await issueParticipantToken({
    secret,
    participantId,
    stageId: request.streamId,
    userId: request.userId,
    attributes: {},
    capabilities: kind.capabilities,
    stageBaseUrl,
    ttlSeconds: request.minutes * 60,
    now,
  });
  const url = kind.url(stageBaseUrl, request.streamId);
  const until = new Date(Math.floor(now.getTime() / 1000) * 1000 + request.minutes * 60_000);
  io.err(
    `${kind.capability} token for ${request.streamId}: local stage at ${stageBaseUrl}, user ${request.userId}, ` +
      `participant ${participantId}, valid until ${until.toISOString()}.`,
  );
  if (!config.publicUrlSet) {
    io.err(
      `PUBLIC_URL is not set, so the ${kind.urlName.slice(0, 4)} URL names localhost: ${kind.holder} on another machine needs PUBLIC_URL set to the address it reaches this server at.`,
    );
  }
  io.err(kind.howTo);
  io.out(`${kind.urlName}=${url}`);
  io.out(`${kind.capability}_TOKEN=${token}`);
}

export function runPublishTokenCommand(args: string[], io: PublishTokenIo): Promise<number> {
  return runTokenCommand(args, io, PUBLISH);
}

export function runSubscribeTokenCommand(args: string[], io: PublishTokenIo): Promise<number> {
  return runTokenCommand(args, io, SUBSCRIBE);
}

async function runTokenCommand(
  args: string[],
  io: PublishTokenIo,
  kind: TokenKind,
): Promise<number> {
  let config: PublishTokenConfig;
  try {
    config = parsePublishTokenConfig(io.env, io.repoRoot);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(error.message);
    return 1;
  }
  if (config.stageProvider === 'local' && !config.publicUrlSet && !isLoopbackHost(config.host)) {
    // Served beyond this machine, the token's URL must be the one its holder reaches: only the
    // configuration knows it (the server never takes it from a request's Host header).
    io.err(
      `PUBLIC_URL is required: the server listens on ${config.host}, beyond this machine, and the token must name the address ${kind.holder} reaches it at (e.g. PUBLIC_URL=https://tailcam.example).`,
    );
    return 1;
  }
  if (config.stageProvider === 'ivs') {
    if (kind === PUBLISH) return runIvsCli(['publish-token', ...args], io);
    io.err(
      'subscribe-token is for the local stage: Amazon IVS has no WHEP playback of stages (STAGE_PROVIDER=ivs).',
    );
    return 2;
  }
  try {
    const request = parseRequest(args, kind);
    if (request === 'help') {
      io.err(kind.usage);
      return 0;
    }
    await issueLocal(request, kind, config, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${kind.usage}`);
      return 2;
    }
    io.err(
      `Could not issue the ${kind === PUBLISH ? 'publish' : 'subscribe'} token: ${(error as Error).message}`,
    );
    return 1;
  }
}
