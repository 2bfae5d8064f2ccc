import { useState } from 'react';
import { CreateTokenModal, type CreatedToken } from './CreateTokenModal';
import { TokenCreatedModal } from './TokenCreatedModal';

/** 'Setup MCP': the token dialog preset for MCP, then the created dialog with the client setup. */
export default function McpSetupFlow({ onClose }: { onClose(): void }) {
  const [created, setCreated] = useState<CreatedToken>();
  return created ? (
    <TokenCreatedModal token={created} onClose={onClose} />
  ) : (
    <CreateTokenModal forMcp onCreated={setCreated} onClose={onClose} />
  );
}
