/** Placeholder until the screen lands. */
export default function CanaryPage() {
  return null;
}
