import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { useFlightHudToggle } from '../hooks/use-flight-hud-toggle';
import { FlightHudToggle } from './flight-hud-toggle';

/** The toggle as the player wires it: its button with the others, the HUD while shown. */
function Player({
  onAnnounce,
  helpOpen = false,
}: {
  onAnnounce: (text: string) => void;
  helpOpen?: boolean;
}) {
  const { shown, toggle } = useFlightHudToggle({ onAnnounce, keyEnabled: () => !helpOpen });
  return (
    <>
      <input aria-label="Search" />
      <FlightHudToggle shown={shown} onToggle={toggle} className="control" />
      {shown && <p>HUD</p>}
    </>
  );
}

describe('the flight data toggle', () => {
  it('is shown at first; the button hides and shows it, pressed while shown, and says so', async () => {
    const user = userEvent.setup();
    const onAnnounce = vi.fn();
    render(<Player onAnnounce={onAnnounce} />);
    const button = screen.getByRole('button', { name: 'Flight data' });
    expect(button).toHaveAttribute('aria-pressed', 'true');
    expect(button).toHaveAttribute('aria-keyshortcuts', 'h');
    expect(screen.getByText('HUD')).toBeInTheDocument();

    await user.click(button);
    expect(button).toHaveAttribute('aria-pressed', 'false');
    expect(screen.queryByText('HUD')).toBeNull();
    expect(onAnnounce).toHaveBeenLastCalledWith('Flight data hidden');

    await user.click(button);
    expect(button).toHaveAttribute('aria-pressed', 'true');
    expect(onAnnounce).toHaveBeenLastCalledWith('Flight data shown');
  });

  it('toggles on the key h, but not while typing in a field, with a modifier, or when the player says no', async () => {
    const user = userEvent.setup();
    const onAnnounce = vi.fn();
    const { rerender } = render(<Player onAnnounce={onAnnounce} />);
    await user.keyboard('h');
    expect(screen.queryByText('HUD')).toBeNull();
    await user.keyboard('h');
    expect(screen.getByText('HUD')).toBeInTheDocument();

    await user.click(screen.getByRole('textbox', { name: 'Search' }));
    await user.keyboard('h');
    expect(screen.getByRole('textbox')).toHaveValue('h');
    expect(screen.getByText('HUD')).toBeInTheDocument();

    await user.click(document.body);
    await user.keyboard('{Control>}h{/Control}');
    expect(screen.getByText('HUD')).toBeInTheDocument();

    rerender(<Player onAnnounce={onAnnounce} helpOpen />);
    await user.keyboard('h');
    expect(screen.getByText('HUD')).toBeInTheDocument();
    expect(onAnnounce).toHaveBeenCalledTimes(2);
  });
});
