/**
 * The stage process's log lines: the API's record shape (pino's), so that `npm start` prints one
 * kind of line whichever process speaks; JSON lines, or readable ones on a terminal.
 */
import { LOG_LEVELS, formatLogLine, type LogFormat } from '@tailcam/protocol/log-line';

export type StageLog = (message: string, detail?: unknown) => void;

export function createStageLog(
  format: LogFormat,
  write: (line: string) => void = (line) => console.log(line),
  now: () => number = Date.now,
  /** The camera process logs as `tailcam-cameras`. */
  service = 'tailcam-stage',
): StageLog {
  return (message, detail) => {
    const suffix =
      detail instanceof Error ? `: ${detail.message}` : detail ? ` ${String(detail)}` : '';
    const record = {
      // An error handed along is something that went wrong and was recovered from.
      level: detail instanceof Error ? LOG_LEVELS.warn : LOG_LEVELS.info,
      time: now(),
      service,
      msg: `${message}${suffix}`,
    };
    write(format === 'pretty' ? formatLogLine(record) : JSON.stringify(record));
  };
}
