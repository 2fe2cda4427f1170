/**
 * How the API and the local stage's processes log: pino with one level list and one redaction,
 * writing JSON lines (pino's shape) for whatever collects logs, or on a terminal lines a person
 * reads, through pino-pretty with one set of options (pretty-log.js). Under `npm start` every
 * process writes JSON and scripts/start.mjs prints it so; a process run by itself on a terminal
 * prints the same lines.
 */

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Unless LOG_FORMAT says otherwise: readable on a terminal, JSON everywhere else. */
export const defaultLogFormat = (isTerminal: boolean | undefined): LogFormat =>
  isTerminal === true ? 'pretty' : 'json';

/** What LOG_LEVEL may say, the API's and the stage's alike. */
export const LOG_LEVEL_NAMES = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

/**
 * What pino writes `[redacted]` for, in every process: never a password, token, secret or
 * Authorization header.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
  '*.authSecret',
  '*.authorization',
];

/** pino's `redact` option of every process, applied before either format is written. */
export const LOG_REDACTION = { paths: REDACTED_PATHS, censor: '[redacted]' };
