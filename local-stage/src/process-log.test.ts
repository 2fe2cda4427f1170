/**
 * What a local stage process prints when run by itself, outside `npm start`: on a terminal (a
 * pseudo-terminal from util-linux's `script`), pino-pretty's lines in colour, as the API prints
 * them; into a pipe, JSON lines for a log collector. The camera process with no camera to publish
 * and the recorder with RECORDING=off each log one line and exit; they run from source (tsx).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

const processes = [
  {
    name: 'the camera process',
    entry: 'src/cameras-main.ts',
    env: { STAGE_SYNTHETIC_CAMERAS: 'none' },
    service: 'tailcam-cameras',
    message: 'STAGE_SYNTHETIC_CAMERAS=none: no synthetic camera to publish; exiting',
  },
  {
    name: 'the recorder',
    entry: 'src/recorder-main.ts',
    env: { RECORDING: 'off' },
    service: 'tailcam-recorder',
    message: 'RECORDING=off: nothing to record; exiting',
  },
];

/** Runs `command` until it exits, LOG_FORMAT unset; what it wrote to standard output. */
function output(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const processEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
  delete processEnv.LOG_FORMAT;
  const child = spawn(command, args, {
    cwd: packageDir,
    env: processEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let written = '';
  child.stdout.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(written) : reject(new Error(`${command} exited ${code}:\n${written}`)),
    );
  });
}

// eslint-disable-next-line no-control-regex -- the terminal's colour sequences are what is removed
const withoutColour = (text: string) => text.replace(/\x1b\[\d+m/g, '');

for (const { name, entry, env, service, message } of processes) {
  describe(`${name} run by itself`, () => {
    const nodeWithTsx = `'${process.execPath}' --import tsx ${entry}`;

    it('prints pino-pretty lines in colour on a terminal: time, level, process, message', async () => {
      // script(1) runs the command on a pseudo-terminal of its own; the terminal ends lines in \r\n.
      const text = await output(
        'script',
        ['--quiet', '--return', '--command', nodeWithTsx, '/dev/null'],
        env,
      );
      expect(text).toContain('\x1b[');
      const lines = withoutColour(text)
        .split('\r\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\[\d\d:\d\d:\d\d\.\d{3}\]/, '[time]'));
      expect(lines).toEqual([`[time] INFO: ${service.replace(/^tailcam-/, '')} ${message}`]);
    });

    it('prints JSON lines into a pipe', async () => {
      const text = await output(process.execPath, ['--import', 'tsx', entry], env);
      const records = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown);
      expect(records).toEqual([expect.objectContaining({ level: 30, service, msg: message })]);
    });
  });
}
