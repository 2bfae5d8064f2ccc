import { Button, CodeBlock, CodeBlockAction, CodeBlockCode, Content, Tab, TabTitleText, Tabs, Title } from '@patternfly/react-core';
import CopyIcon from '@patternfly/react-icons/dist/esm/icons/copy-icon';
import { useState } from 'react';
import { useCopyToClipboard } from '../../app/clipboard';
import { mcpEndpoint, mcpSetups, type McpClientSetup } from './mcpSetup';

function SetupTab({ setup }: { setup: McpClientSetup }) {
  const copy = useCopyToClipboard();
  const what = `${setup.client} ${setup.language === 'shell' ? 'command' : 'configuration'}`;
  return (
    <>
      <Content component="p" className="pf-v6-u-my-sm">
        {setup.instructions}
      </Content>
      <CodeBlock
        actions={
          <CodeBlockAction>
            <Button variant="plain" aria-label={`Copy ${what}`} icon={<CopyIcon />} onClick={() => void copy(setup.snippet)} />
          </CodeBlockAction>
        }
      >
        <CodeBlockCode role="region" aria-label={what} tabIndex={0}>
          {setup.snippet}
        </CodeBlockCode>
      </CodeBlock>
    </>
  );
}

/** How to connect each MCP client to this console's /mcp with the new token. */
export function McpSetupPanel({ token }: { token: string }) {
  // The console is served by the API, so its origin is the public URL clients reach.
  const url = mcpEndpoint(window.location.origin);
  const setups = mcpSetups(url, token);
  const [active, setActive] = useState<string | number>(0);
  return (
    <section aria-labelledby="mcp-setup-title" className="pf-v6-u-mt-lg">
      <Title headingLevel="h3" size="md" id="mcp-setup-title">
        MCP client setup
      </Title>
      <Content component="p">
        AI agents reach Quarterdeck&apos;s MCP server at <code>{url}</code> with this token, seeing and doing only what you may.
      </Content>
      <Tabs
        id="mcp-clients"
        tabListAriaLabel="MCP clients"
        activeKey={active}
        onSelect={(_e, key) => setActive(key)}
        mountOnEnter
        unmountOnExit
      >
        {setups.map((setup, index) => (
          // Numbers as keys: PatternFly builds element ids from them, and client names have spaces.
          <Tab key={setup.client} eventKey={index} title={<TabTitleText>{setup.client}</TabTitleText>}>
            <SetupTab setup={setup} />
          </Tab>
        ))}
      </Tabs>
    </section>
  );
}
