/**
 * What the lab's long cases set up alike: Tailcam started in the lab with a viewer signed in, and
 * Chromium run in a lab namespace, closed after each case.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '../chromium';
import { labProduct, type LabProduct, type ProductHost } from './lab-product';
import type { LabNamespace } from './lab-topology';
import type { NetworkLab } from './network-lab';

/** The account the lab's viewers sign in with. */
export const LAB_VIEWER = { username: 'lab-viewer', password: 'lab-viewer-password-1' };

export interface StartedLabProduct extends LabProduct {
  /** The product's log: `tailcam-{name}-{pid}.log` in the temporary directory. */
  logFile: string;
  /** LAB_VIEWER's login token. */
  loginToken: string;
}

/**
 * Tailcam started on `host` as `npm start` starts it (the API on 8080, the stage on 8091), with
 * LAB_VIEWER's account; disposed here if it does not start.
 */
export async function startLabProduct(
  lab: NetworkLab,
  host: ProductHost,
  name: string,
  env: NodeJS.ProcessEnv = {},
): Promise<StartedLabProduct> {
  const logFile = join(tmpdir(), `tailcam-${name}-${process.pid}.log`);
  const started = await labProduct(lab, host, { name, port: 8080, stagePort: 8091, logFile, env });
  try {
    started.product.addViewer(LAB_VIEWER);
    await started.product.start();
    return { ...started, logFile, loginToken: await started.product.loginToken(LAB_VIEWER) };
  } catch (error) {
    await started.product.dispose();
    throw error;
  }
}

/** Chromium in lab namespaces: every browser launched is closed by closeAll() (an afterEach). */
export class LabBrowsers {
  private readonly browsers: Browser[] = [];

  async launch(lab: NetworkLab, role: LabNamespace, extraArgs: string[] = []): Promise<Browser> {
    const browser = await chromium.launch({
      executablePath: lab.chromiumExecutable(role, chromiumExecutable()),
      args: [...CHROMIUM_ARGS, ...extraArgs],
      timeout: 30_000,
    });
    this.browsers.push(browser);
    return browser;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.browsers.splice(0).map((browser) => browser.close()));
  }
}
