/** Placeholder until the screen lands. */
export default function CanariesPage() {
  return null;
}
