/**
 * The pages that load when first opened (docs/product.md#routes): every page but sign-in, /home
 * and the player, the pages a visit starts on, which the initial JS holds. Each is a chunk of its
 * own. `preload` fetches one ahead (on a link's hover or focus); the browser keeps a module once
 * loaded, so a second call costs nothing and the render that follows waits on no network
 * (decision 0060).
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

interface LazyPage {
  Page: LazyExoticComponent<ComponentType>;
  preload: () => void;
}

function lazyPage(load: () => Promise<ComponentType>): LazyPage {
  const loadModule = () => load().then((Page) => ({ default: Page }));
  // A fetch ahead that fails costs nothing: the render fetches again, and says so if it fails.
  return { Page: lazy(loadModule), preload: () => void loadModule().catch(() => undefined) };
}

export const watchAllPage = lazyPage(() =>
  import('./routes/watch-all').then((module) => module.WatchAllRoute),
);

export const operationsPage = lazyPage(() =>
  import('./routes/operations').then((module) => module.OperationsRoute),
);

export const recordingsPage = lazyPage(() =>
  import('./routes/recordings').then((module) => module.RecordingsRoute),
);
