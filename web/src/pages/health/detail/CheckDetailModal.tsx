/** Placeholder until the check detail dialog lands. */
export default function CheckDetailModal({ checkId }: { checkId: string }) {
  return <span hidden>{checkId}</span>;
}
