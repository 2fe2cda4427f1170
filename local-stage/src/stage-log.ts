/**
 * The logger of the stage, camera, recorder and thumbnail processes: pino, as the API's
 * (server/src/logger.ts), with its record shape (`level`, `time`, `service`, `msg`, fields, an
 * error as `err`), its redaction and its readable lines on a terminal (pino-pretty, with the same
 * options, protocol/src/pretty-log.js), so that `npm start` prints one kind of line whichever
 * process speaks, a process started on its own prints the same, and whatever reads the logs (the
 * soak's scan for errors) reads the stage's too.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import {
  defaultLogFormat,
  LOG_REDACTION,
  type LogFormat,
  type LogLevelName,
} from '@tailcam/protocol/log-line';
import { prettyDestination } from '@tailcam/protocol/pretty-log';

/** What the stage's parts log through. */
export type StageLogger = Logger;

export interface StageLoggerOptions {
  /** LOG_LEVEL; `info` when omitted. */
  level?: LogLevelName;
  /** LOG_FORMAT; unset: pretty when standard output is a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  /** The camera process logs as `tailcam-cameras`, the recorder as `tailcam-recorder`. */
  service?: 'tailcam-stage' | 'tailcam-cameras' | 'tailcam-thumbnails' | 'tailcam-recorder';
  /** Where lines go; standard output when omitted. */
  destination?: DestinationStream;
  /** The records' time, in ms since the epoch (tests fix it). */
  now?: () => number;
}

export function createStageLogger(options: StageLoggerOptions = {}): StageLogger {
  const format = options.format ?? defaultLogFormat(process.stdout.isTTY);
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  const colorize = options.destination === undefined && process.stdout.isTTY === true;
  const now = options.now;
  return pino(
    {
      level: options.level ?? 'info',
      redact: LOG_REDACTION,
      base: { service: options.service ?? 'tailcam-stage' },
      ...(now ? { timestamp: () => `,"time":${now()}` } : {}),
    },
    format === 'pretty' ? prettyDestination(out, { colorize }) : out,
  );
}

/** A logger that writes nothing: what a part logs through when it is given none (tests). */
export const silentLogger = (): StageLogger => pino({ level: 'silent' });
