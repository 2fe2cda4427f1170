/**
 * How the API and the local stage print their logs: JSON lines (pino's shape) for whatever
 * collects logs, or on a terminal a line a person reads. Under `npm start` every process writes
 * JSON and scripts/start.mjs prints it through pino-pretty (pretty-log.js, as the API's own
 * logger); formatLogLine is the look of a stage process run by itself on a terminal,
 * `14:03:07.123 INFO  stage  camera feed N743AS closed; reconnecting streamId=N743AS`.
 */

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Unless LOG_FORMAT says otherwise: readable on a terminal, JSON everywhere else. */
export const defaultLogFormat = (isTerminal: boolean | undefined): LogFormat =>
  isTerminal === true ? 'pretty' : 'json';

/** pino's numeric levels. */
export const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

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
export const REDACTED_PATHS = [
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

/** Fields every record has, or that a person at a terminal does not need. */
const HIDDEN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'reqId']);

type LogRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is LogRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function levelName(level: unknown): string {
  const entry = Object.entries(LOG_LEVELS).find(([, value]) => value === level);
  return (entry?.[0] ?? String(level)).toUpperCase();
}

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** A request as one phrase: `GET /api/health 200 3 ms`. */
function requestPhrase(record: LogRecord): string {
  const req = isRecord(record.req) ? record.req : {};
  const res = isRecord(record.res) ? record.res : {};
  const parts = [req.method, req.url, res.statusCode].filter((part) => part !== undefined);
  if (typeof record.responseTime === 'number') parts.push(`${Math.round(record.responseTime)} ms`);
  return parts.map(String).join(' ');
}

/** One record (a JSON log line, parsed) as a person reads it; an error's stack follows indented. */
export function formatLogLine(record: LogRecord): string {
  const service = typeof record.service === 'string' ? record.service.replace(/^tailcam-/, '') : '';
  const words = [clock(record.time), levelName(record.level).padEnd(5), service.padEnd(5)];
  if (record.msg !== undefined) words.push(String(record.msg));
  const phrase = requestPhrase(record);
  if (phrase !== '') words.push(phrase);
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN.has(key) || key === 'req' || key === 'res' || key === 'responseTime') continue;
    if (value === undefined) continue;
    if (key === 'err' && isRecord(value)) {
      words.push(`err=${fieldValue(value.message)}`);
      if (typeof value.stack === 'string') {
        stack = value.stack
          .split('\n')
          .slice(1)
          .map((line) => `\n    ${line.trim()}`)
          .join('');
      }
      continue;
    }
    words.push(`${key}=${fieldValue(value)}`);
  }
  return words.join(' ') + stack;
}

/**
 * Where a logger writes JSON lines, so that `out` gets them as formatLogLine prints them: pino's
 * destination for LOG_FORMAT=pretty.
 */
export function prettyDestination(out: { write(text: string): unknown }): {
  write(line: string): void;
} {
  return { write: (line) => void out.write(`${formatJsonLogLine(line)}\n`) };
}

/** A JSON log line as formatLogLine prints it; a line that is not JSON is printed as it is. */
export function formatJsonLogLine(line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line.replace(/\n$/, '');
  }
  return isRecord(record) ? formatLogLine(record) : line.replace(/\n$/, '');
}
