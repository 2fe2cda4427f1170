/**
 * Puts Node's stand-ins where the SDK looks for the browser's own `WebSocket` and
 * `RTCPeerConnection`, for the SDK's tests that run it in Node against a real stage.
 */
export function installBrowserGlobals(globals: {
  WebSocket: unknown;
  RTCPeerConnection?: unknown;
}): void {
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
}
