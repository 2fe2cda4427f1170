/** Structured logs (pino): never a password, token, secret or Authorization header. */
import { pino, type Logger } from 'pino';

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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'tailcam-api' },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
