/**
 * The storage status a record page shows (SPEC §4): 'Remote' when no pin is known, 'Pinned' when
 * any pin is pinned, otherwise the status of the most recently updated pin.
 */
export interface PinView {
  status: string;
  updatedAt: Date;
}

export function storageStatusLabel(pins: readonly PinView[]): string {
  if (pins.length === 0) return 'Remote';
  if (pins.some((pin) => pin.status === 'pinned')) return 'Pinned';
  const latest = pins.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));
  return latest.status.charAt(0).toUpperCase() + latest.status.slice(1);
}
