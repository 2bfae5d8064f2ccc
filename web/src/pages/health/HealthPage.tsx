/** Placeholder until the screen lands. */
export default function HealthPage() {
  return null;
}
