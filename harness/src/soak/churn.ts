/**
 * The churn beside the viewers, until they are done: the camera process killed with SIGKILL every
 * few minutes (the start script restarts it), and a browser WHIP publisher (Eyevinn's client on
 * the harness's page, the camera it draws) coming and going on N954AS.
 */
import { pollUntil } from '../poll';
import { servePublisherPage, whipPublisher } from '../third-party-pages';
import { allOnAir, elapsed, pause, type SoakRun } from './context';

export interface WhipPublisherChurn {
  sessions: number;
  onAir: number;
  failures: string[];
}

/** Kills the camera process every `everyMs`; how many times it did. */
export async function killCameras(run: SoakRun, everyMs: number | undefined): Promise<number> {
  let kills = 0;
  if (!everyMs) return kills;
  for (;;) {
    await pause(run, everyMs);
    if (run.viewersDone) return kills;
    const pid = run.product.camerasPid();
    if (pid === undefined) continue;
    process.kill(pid, 'SIGKILL');
    kills += 1;
    run.cameraKillTimes.push(Date.now());
    run.log(`${elapsed(run)}: camera process ${pid} killed`);
    // The next period starts once every aircraft is on air again, however long the restart.
    await pollUntil(() => allOnAir(run), 60_000);
  }
}

/** Publishes to N954AS for half of every `everyMs`, each time from a fresh publisher page. */
export async function churnWhipPublisher(
  run: SoakRun,
  everyMs: number | undefined,
): Promise<WhipPublisherChurn> {
  const churn: WhipPublisherChurn = { sessions: 0, onAir: 0, failures: [] };
  if (!everyMs) return churn;
  const { whipUrl, token } = run.product.publishToken('N954AS');
  const served = await servePublisherPage();
  const page = await run.browser.newPage();
  const publisher = whipPublisher(page);
  try {
    for (;;) {
      await pause(run, everyMs / 2);
      if (run.viewersDone) return churn;
      churn.sessions += 1;
      try {
        // A fresh page a session: the last one's camera stream goes with it.
        await page.goto(served.url);
        await publisher.start({ endpoint: whipUrl, token, videoCodec: 'video/VP8' });
        const onAir = await pollUntil(
          async () =>
            (await run.product.stage.stats()).stages.N954AS?.publisher?.kind === 'encoder',
          15_000,
        );
        if (onAir) churn.onAir += 1;
        else churn.failures.push(`session ${churn.sessions} never on air`);
      } catch (error) {
        churn.failures.push(String(error));
      }
      await pause(run, everyMs / 2);
      await publisher
        .stop()
        .catch((error: unknown) => churn.failures.push(`stop: ${String(error)}`));
    }
  } finally {
    await page.close();
    await served.close();
  }
}
