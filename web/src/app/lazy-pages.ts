/**
 * The pages that load when first opened (docs/product.md#routes): every page but sign-in, /home
 * and the player, the pages a visit starts on, which the initial JS holds. Each is a chunk of its
 * own. `preload` fetches one ahead (on a link's hover or focus); the browser keeps a module once
 * loaded, so a second call costs nothing and the render that follows waits on no network
 * (decision 0060).
 */
import { createElement, lazy, type ComponentType } from 'react';

interface LazyPage {
  Page: ComponentType;
  preload: () => void;
  /** Whether its module is there, so that the page renders at once. */
  loaded: () => boolean;
}

/**
 * Once its module is loaded, the page renders at once: the router's updates are not transitions
 * (router.tsx), and a page that suspended would show the spinner and then wait React's reveal
 * throttle. Before, it suspends under the spinner while it loads.
 */
function lazyPage(load: () => Promise<ComponentType>): LazyPage {
  let loaded: ComponentType | undefined;
  const loadModule = () =>
    load().then((Page) => {
      loaded = Page;
      return { default: Page };
    });
  const Lazy = lazy(loadModule);
  return {
    Page: () => createElement(loaded ?? Lazy),
    // A fetch ahead that fails costs nothing: the render fetches again, and says so if it fails.
    preload: () => void loadModule().catch(() => undefined),
    loaded: () => loaded !== undefined,
  };
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
