import { X } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { shortcutsText } from '@/config/ui-text-shortcuts';

const shortcuts = shortcutsText;

const KEYS: [key: string, does: string][] = [
  ['f', shortcuts.fullscreen],
  ['p', shortcuts.pictureInPicture],
  ['i', shortcuts.stats],
  ['h', shortcuts.flightData],
  ['?', shortcuts.help],
  ['j', shortcuts.back10],
  ['l', shortcuts.on10],
  ['← →', shortcuts.back5on5],
  ['Home', shortcuts.oldest],
  ['End', shortcuts.goLive],
  ['k', shortcuts.pauseRecording],
];

interface KeyboardHelpDialogProps {
  open: boolean;
  onClose: () => void;
}

/**
 * 'Keyboard shortcuts' (docs/product.md#keyboard): a modal dialog, so focus stays in it and
 * Escape closes it; on close, focus goes back where it was.
 */
export function KeyboardHelpDialog({ open, onClose }: KeyboardHelpDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog || !open) return;
    const returnFocusTo = document.activeElement;
    dialog.showModal();
    return () => {
      dialog.close();
      if (returnFocusTo instanceof HTMLElement && returnFocusTo.isConnected) returnFocusTo.focus();
    };
  }, [open]);

  return (
    <dialog
      ref={dialogRef}
      aria-labelledby="keyboard-help-title"
      // Escape: the browser closes the dialog; the state must follow.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose(); // a click on the backdrop
      }}
      className="m-auto w-[min(22rem,calc(100vw-2rem))] rounded-xl bg-slate-900 p-0 text-slate-100 shadow-2xl ring-1 ring-slate-700 backdrop:bg-slate-950/70"
    >
      <div className="p-5">
        <div className="mb-4 flex items-center justify-between gap-4">
          <h2 id="keyboard-help-title" className="text-lg font-semibold text-white">
            {shortcuts.title}
          </h2>
          <button
            type="button"
            onClick={onClose}
            className="inline-flex items-center gap-1.5 rounded-lg px-2 py-1 text-sm text-slate-300 transition hover:bg-slate-800 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
          >
            <X aria-hidden="true" className="size-4" />
            {shortcuts.close}
          </button>
        </div>
        <dl className="grid grid-cols-[auto_1fr] items-center gap-x-4 gap-y-2.5">
          {KEYS.map(([key, does]) => (
            <div key={key} className="contents">
              <dt>
                <kbd className="inline-flex min-w-7 justify-center rounded-md bg-slate-800 px-2 py-0.5 font-mono text-sm text-white ring-1 ring-slate-600">
                  {key}
                </kbd>
              </dt>
              <dd className="text-sm text-slate-300">{does}</dd>
            </div>
          ))}
        </dl>
      </div>
    </dialog>
  );
}
