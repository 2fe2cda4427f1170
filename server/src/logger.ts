/**
 * Structured logs (pino): never a password, token, secret or Authorization header. JSON lines,
 * or with the pretty format the same records as readable lines (redacted before either is
 * written).
 */
import { pino, type Logger } from 'pino';
import { defaultLogFormat, formatJsonLogLine, type LogFormat } from '@tailcam/protocol/log-line';

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

export interface LoggerOptions {
  /** Unset: pretty when standard output is a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  /** Where lines go; standard output when omitted. */
  destination?: pino.DestinationStream;
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const format = options.format ?? defaultLogFormat(process.stdout.isTTY);
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  const destination: pino.DestinationStream =
    format === 'pretty'
      ? { write: (line: string) => void out.write(`${formatJsonLogLine(line)}\n`) }
      : out;
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'tailcam-api' },
    },
    destination,
  );
}
