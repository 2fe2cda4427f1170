// How a person at a terminal reads the logs of every Tailcam process: pino's JSON lines through
// pino-pretty with one set of options, one line a record. Plain JavaScript so that
// scripts/start.mjs (plain Node), which prints its children's lines, the API's logger and the
// local stage's processes' logger share one look (docs/decisions/0100-one-log-look.md).
import { prettyFactory } from 'pino-pretty';

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A request as one phrase after the message: `GET /api/health 200 3 ms`. */
function requestPhrase(record) {
  const req = isRecord(record.req) ? record.req : {};
  const res = isRecord(record.res) ? record.res : {};
  const parts = [req.method, req.url, res.statusCode].filter((part) => part !== undefined);
  if (typeof record.responseTime === 'number') parts.push(`${Math.round(record.responseTime)} ms`);
  return parts.map(String).join(' ');
}

/**
 * pino-pretty's options: the time of day, the level, the process (`service` without `tailcam-`),
 * the message, a request's method, path, status and time, then the other fields on the same line;
 * an error's stack on the lines below.
 */
export function prettyLogOptions({ colorize }) {
  return {
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,reqId,req,res,responseTime',
    messageFormat: (record, messageKey) => {
      const service =
        typeof record.service === 'string' ? record.service.replace(/^tailcam-/, '') : '';
      const words = [service, record[messageKey], requestPhrase(record)];
      return words.filter((word) => word !== undefined && word !== '').join(' ');
    },
  };
}

/**
 * Where JSON log lines are written to reach `out` as a person reads them: a pino logger's
 * destination for LOG_FORMAT=pretty, and what scripts/start.mjs hands its children's lines. A
 * line that is not a JSON record reaches `out` as it is.
 */
export function prettyDestination(out, { colorize }) {
  const prettify = prettyFactory(prettyLogOptions({ colorize }));
  return { write: (line) => void out.write(prettify(line)) };
}
