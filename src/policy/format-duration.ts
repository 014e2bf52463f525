/** `1 h`, `15 min`, `90 s`, `2 d`: a window or a wait, for messages. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  if (seconds >= 600) return `${Math.ceil(seconds / 60)} min`;
  return `${seconds} s`;
}
