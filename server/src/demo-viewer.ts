/**
 * The embedded default's demo viewer: with the local provider and no accounts at all, one viewer
 * `demo` with a random password is created at start-up, so a fresh clone can sign in at once.
 * Its credentials go to the parent process over IPC (the orchestrator prints them when the
 * whole system is ready) or to the console, never into the structured logs. Never with IVS.
 */
import { generatePassword } from './auth/passwords';
import { createAccounts } from './accounts/accounts';
import type { UserStore } from './db/user-store';

export const DEMO_USERNAME = 'demo';

export interface DemoViewer {
  username: string;
  password: string;
}

export async function ensureDemoViewer(
  store: UserStore,
  stageProvider: 'local' | 'ivs',
): Promise<DemoViewer | undefined> {
  if (stageProvider !== 'local') return undefined;
  if ((await store.countUsers()) > 0) return undefined;
  const password = generatePassword();
  await createAccounts(store).add(DEMO_USERNAME, password);
  return { username: DEMO_USERNAME, password };
}

export function announceDemoViewer(
  viewer: DemoViewer,
  /** The IPC channel to the parent; null or absent when there is none. */
  send: ((message: unknown) => boolean) | null = process.send?.bind(process) ?? null,
): void {
  if (send !== null) {
    send({ type: 'demo-viewer', username: viewer.username, password: viewer.password });
    return;
  }
  console.log(
    [
      '',
      '  ================= Tailcam demo viewer =================',
      `    username: ${viewer.username}`,
      `    password: ${viewer.password}`,
      '  Created because there were no accounts. Add your own with',
      '  `npm run users -- add NAME`; `npm run users -- disable demo`',
      '  retires this one.',
      '  ======================================================',
      '',
    ].join('\n'),
  );
}
