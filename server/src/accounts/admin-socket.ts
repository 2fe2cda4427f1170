/**
 * The running server's admin socket (`DATA_DIR/admin.sock`, mode 0600 in a 0700 directory, so
 * only the server's owner can reach it). The users CLI talks to it while the server holds the
 * PGlite data directory. Protocol: one JSON request line, one JSON response line, then close.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { AccountError, type Accounts, type UserSummary } from './accounts';

export const ADMIN_SOCKET_FILE = 'admin.sock';
const MAX_REQUEST_BYTES = 16 * 1024;

const noNul = z
  .string()
  .max(2048)
  .refine((value) => !value.includes('\u0000'), 'contains NUL');

export const adminRequestSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('add'), username: noNul, password: noNul }),
  z.object({ command: z.literal('list') }),
  z.object({ command: z.literal('passwd'), username: noNul, password: noNul }),
  z.object({ command: z.literal('disable'), username: noNul }),
  z.object({ command: z.literal('remove'), username: noNul }),
]);

export type AdminRequest = z.infer<typeof adminRequestSchema>;

const userSummarySchema = z.object({
  username: z.string(),
  createdAt: z.string(),
  disabled: z.boolean(),
});

export const adminResponseSchema = z.union([
  z.strictObject({ ok: z.literal(true), users: z.array(userSummarySchema) }),
  z.strictObject({ ok: z.literal(true), user: userSummarySchema.optional() }),
  z.strictObject({ ok: z.literal(false), code: z.string(), error: z.string() }),
]);

export type AdminResponse = z.infer<typeof adminResponseSchema>;

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET_FILE);
}

export async function runAdminRequest(
  accounts: Accounts,
  request: AdminRequest,
): Promise<AdminResponse> {
  try {
    switch (request.command) {
      case 'add':
        return { ok: true, user: await accounts.add(request.username, request.password) };
      case 'list':
        return { ok: true, users: await accounts.list() };
      case 'passwd':
        await accounts.passwd(request.username, request.password);
        return { ok: true };
      case 'disable':
        await accounts.disable(request.username);
        return { ok: true };
      case 'remove':
        await accounts.remove(request.username);
        return { ok: true };
    }
  } catch (error) {
    if (error instanceof AccountError) return { ok: false, code: error.code, error: error.message };
    throw error;
  }
}

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

/** Listens on `DATA_DIR/admin.sock`; the caller must hold the data directory's lock. */
export async function startAdminSocket(
  dataDir: string,
  accounts: Accounts,
  log: FastifyBaseLogger,
): Promise<AdminSocket> {
  const path = adminSocketPath(dataDir);
  // We hold the data directory's lock, so a socket file left here is from a dead server.
  if (existsSync(path)) unlinkSync(path);
  const server: Server = createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REQUEST_BYTES) {
        socket.end(`${JSON.stringify({ ok: false, code: 'bad_request', error: 'Too large' })}\n`);
        return;
      }
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.removeAllListeners('data');
      void answer(buffered.slice(0, newline)).then((response) => {
        socket.end(`${JSON.stringify(response)}\n`);
      });
    });
  });

  async function answer(line: string): Promise<AdminResponse> {
    let request: AdminRequest;
    try {
      request = adminRequestSchema.parse(JSON.parse(line));
    } catch {
      return { ok: false, code: 'bad_request', error: 'Malformed admin request' };
    }
    try {
      const response = await runAdminRequest(accounts, request);
      log.info({ command: request.command }, 'admin socket command');
      return response;
    } catch (error) {
      log.error({ err: error, command: request.command }, 'admin socket command failed');
      return { ok: false, code: 'internal', error: 'The server could not complete the command' };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (existsSync(path)) unlinkSync(path);
      }),
  };
}

export class AdminSocketUnavailableError extends Error {
  constructor(readonly path: string) {
    super(`Cannot reach the server's admin socket at ${path}`);
    this.name = 'AdminSocketUnavailableError';
  }
}

/** Sends one request to a running server's admin socket. */
export function callAdminSocket(path: string, request: AdminRequest): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffered = '';
    let connected = false;
    socket.setEncoding('utf8');
    socket.setTimeout(60_000, () => socket.destroy(new Error('The admin socket did not answer')));
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
    });
    socket.on('error', (error) => {
      reject(connected ? error : new AdminSocketUnavailableError(path));
    });
    socket.on('end', () => {
      try {
        resolve(adminResponseSchema.parse(JSON.parse(buffered.trim())));
      } catch {
        reject(new Error('The admin socket answered something unreadable'));
      }
    });
  });
}

export type { UserSummary };
