/**
 * Structured logs (pino): never a password, token, secret, Authorization header or query value.
 * JSON lines, or with the pretty format the same records through pino-pretty as readable lines
 * (redacted before either is written), as every local stage process prints them.
 */
import { pino, type Logger } from 'pino';
import { defaultLogFormat, LOG_REDACTION, type LogFormat } from '@tailcam/protocol/log-line';
import { prettyDestination } from '@tailcam/protocol/pretty-log';
import { serializeRequest } from './http/request-log';

export interface LoggerOptions {
  /** Unset: pretty when standard output is a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  /** Where lines go; standard output (in colour on a terminal) when omitted. */
  destination?: pino.DestinationStream;
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const format = options.format ?? defaultLogFormat(process.stdout.isTTY);
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  const colorize = options.destination === undefined && process.stdout.isTTY === true;
  return pino(
    {
      level,
      redact: LOG_REDACTION,
      // Takes the place of Fastify's own `req` serializer, which logs the URL whole.
      serializers: { req: serializeRequest },
      base: { service: 'tailcam-api' },
    },
    format === 'pretty' ? prettyDestination(out, { colorize }) : out,
  );
}
