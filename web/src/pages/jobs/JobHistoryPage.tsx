/** Placeholder until the screen lands. */
export default function JobHistoryPage() {
  return null;
}
