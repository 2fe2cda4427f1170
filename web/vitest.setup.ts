import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom has <dialog> but not its methods; the browser's modal behaviour is proven in Chromium
// (e2e). Here they only open and close it, as the browser does.
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    this.open = false;
  };
}

// jsdom has no WebRTC, which the player checks for before it joins (browser-support.ts); the
// stage SDK it joins with is a fake. A test of a browser without it removes this stand-in.
if (typeof globalThis.RTCPeerConnection === 'undefined') {
  globalThis.RTCPeerConnection = class RTCPeerConnection {} as unknown as typeof RTCPeerConnection;
}

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
