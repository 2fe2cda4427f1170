/**
 * TURN for the local stage (decision 0063): short-lived credentials in coturn's shared-secret
 * REST scheme (`use-auth-secret` + `static-auth-secret`), made by the API for the participant
 * token's `ice_servers` claim and by the stage for the `Link: rel="ice-server"` headers of its
 * WHIP/WHEP answers (RFC 9725 §4.6). The three variables are read by both processes, through the
 * pieces below, so they are validated the same way in each. Node only (node:crypto).
 */
import { createHmac } from 'node:crypto';
import { z } from 'zod';

import type { IceServer } from './participant-token';

export type { IceServer };

export interface TurnSettings {
  /** `turn:`/`turns:` URIs, as configured. */
  urls: string[];
  /** coturn's `static-auth-secret`. Never logged, never sent anywhere. */
  secret: string;
  /** How long a credential is accepted for a new allocation (coturn checks it then only). */
  credentialMinutes: number;
}

export const TURN_CREDENTIAL_MINUTES_DEFAULT = 120;
/** The longest participant token the API issues (PARTICIPANT_TOKEN_MINUTES): 14 days. */
export const TURN_CREDENTIAL_MINUTES_MAX = 20_160;
export const TURN_SECRET_MIN_LENGTH = 32;
/**
 * Each token carries every URI: at most this many keeps it well inside the 8 KiB a join message's
 * token may take (local-stage/src/server/sessions/signalling-schema.ts).
 */
export const TURN_URLS_MAX = 8;

/**
 * coturn's REST credential: username `<expiry unix time>:<userId>`, credential
 * base64(HMAC-SHA1(secret, username)). coturn refuses it for a new allocation after the expiry.
 */
export function turnRestCredential(
  secret: string,
  userId: string,
  expiresAtSeconds: number,
): { username: string; credential: string } {
  const username = `${expiresAtSeconds}:${userId}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

/** The ICE servers for one holder (`userId`, a name in coturn's log), valid from `now`. */
export function turnIceServers(
  settings: TurnSettings,
  userId: string,
  now: Date = new Date(),
): IceServer[] {
  const expiresAtSeconds = Math.floor(now.getTime() / 1000) + settings.credentialMinutes * 60;
  return [
    { urls: settings.urls, ...turnRestCredential(settings.secret, userId, expiresAtSeconds) },
  ];
}

/** An RFC 8288 quoted-string. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

/**
 * The `Link` header values of RFC 9725 §4.6 for ICE servers: one per URI, each
 * `<turn:host:port?transport=tcp>; rel="ice-server"; username="…"; credential="…";
 * credential-type="password"`.
 */
export function iceServerLinks(servers: readonly IceServer[]): string[] {
  return servers.flatMap((server) =>
    server.urls.map(
      (url) =>
        `<${url}>; rel="ice-server"; username=${quoted(server.username)}; ` +
        `credential=${quoted(server.credential)}; credential-type="password"`,
    ),
  );
}

const HOST = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)`;
const TURN_URI = new RegExp(
  String.raw`^(turns?):${HOST}(?::(\d{1,5}))?(?:\?transport=(udp|tcp))?$`,
);

/** What is wrong with a TURN URI (RFC 7065), or undefined when nothing is. */
export function turnUriProblem(uri: string): string | undefined {
  const match = TURN_URI.exec(uri);
  if (match === null) {
    return `"${uri}" is not a TURN URI such as turn:turn.example:3478?transport=tcp or turns:turn.example:5349?transport=tcp`;
  }
  const [, scheme, port, transport] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
    return `"${uri}": the port must be from 1 to 65535`;
  }
  if (scheme === 'turns' && transport === 'udp') {
    return `"${uri}": turns: is TURN over TLS, which runs over TCP (browsers do not speak TURN over DTLS)`;
  }
  return undefined;
}

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** The environment variables, as zod schemas each process puts in its own schema. */
export const turnVariables = {
  TURN_URLS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .transform((text, ctx) => {
        const urls = text
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '');
        for (const url of urls) {
          const problem = turnUriProblem(url);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
        }
        if (urls.length > TURN_URLS_MAX) {
          ctx.addIssue({ code: 'custom', message: `at most ${TURN_URLS_MAX} URIs` });
        }
        return urls;
      })
      .optional(),
  ),
  TURN_SECRET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .min(TURN_SECRET_MIN_LENGTH, {
        error: `must be at least ${TURN_SECRET_MIN_LENGTH} characters (coturn's static-auth-secret, e.g. \`openssl rand -base64 48\`)`,
      })
      .optional(),
  ),
  TURN_CREDENTIAL_MINUTES: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number from 1 to ${TURN_CREDENTIAL_MINUTES_MAX}`)
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, 'must be at least 1')
          .max(TURN_CREDENTIAL_MINUTES_MAX, `must be at most ${TURN_CREDENTIAL_MINUTES_MAX}`),
      )
      .default(TURN_CREDENTIAL_MINUTES_DEFAULT),
  ),
};

type TurnVariables = z.output<z.ZodObject<typeof turnVariables>>;

/**
 * The rule between the three: URLs and a secret together, or neither. `parsed(name)` says
 * whether that variable parsed (a failed one is reported once, by its own schema).
 */
export function checkTurnVariables(
  env: Partial<TurnVariables>,
  parsed: (name: keyof TurnVariables) => boolean,
  problem: (name: keyof TurnVariables, message: string) => void,
): void {
  if (!parsed('TURN_URLS') || !parsed('TURN_SECRET')) return;
  const hasUrls = env.TURN_URLS !== undefined && env.TURN_URLS.length > 0;
  if (hasUrls && env.TURN_SECRET === undefined) {
    problem('TURN_SECRET', "required with TURN_URLS (coturn's static-auth-secret)");
  }
  if (!hasUrls && env.TURN_SECRET !== undefined) {
    problem('TURN_URLS', 'required with TURN_SECRET (e.g. turn:turn.example:3478?transport=tcp)');
  }
}

/** The settings the variables give; undefined when TURN is not configured. */
export function turnSettings(env: TurnVariables): TurnSettings | undefined {
  if (env.TURN_URLS === undefined || env.TURN_URLS.length === 0) return undefined;
  if (env.TURN_SECRET === undefined) return undefined;
  return {
    urls: env.TURN_URLS,
    secret: env.TURN_SECRET,
    credentialMinutes: env.TURN_CREDENTIAL_MINUTES,
  };
}
