import { CodeBlock, CodeBlockCode, Title } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';

type Json = Record<string, unknown>;

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function Output({ title, value }: { title: string; value: unknown }) {
  return (
    <>
      <Title headingLevel="h4" size="md" className="pf-v6-u-mt-sm">
        {title}
      </Title>
      <CodeBlock aria-label={title}>
        <CodeBlockCode>{text(value)}</CodeBlockCode>
      </CodeBlock>
    </>
  );
}

function Rows({ rows }: { rows: Json[] }) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <>
      <Title headingLevel="h4" size="md" className="pf-v6-u-mt-sm">
        Rows
      </Title>
      <Table aria-label="Rows" variant="compact">
        <Thead>
          <Tr>
            {columns.map((c) => (
              <Th key={c}>{c}</Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          {rows.map((row, i) => (
            <Tr key={i}>
              {columns.map((c) => (
                <Td key={c} dataLabel={c}>
                  {row[c] === undefined || row[c] === null ? '' : text(row[c])}
                </Td>
              ))}
            </Tr>
          ))}
        </Tbody>
      </Table>
    </>
  );
}

/** What an action left: stdout and stderr (exec), rows (sql), the response
 * (http), and anything else as JSON. */
export function ActionOutput({ result }: { result: unknown }) {
  if (result === null || result === undefined) return null;
  if (typeof result !== 'object' || Array.isArray(result)) return <Output title="Result" value={result} />;
  const { stdout, stderr, rows, ...rest } = result as Json;
  const shown = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return (
    <>
      {typeof stdout === 'string' && stdout !== '' && <Output title="stdout" value={stdout} />}
      {typeof stderr === 'string' && stderr !== '' && <Output title="stderr" value={stderr} />}
      {Array.isArray(rows) && rows.length > 0 && <Rows rows={rows as Json[]} />}
      {Object.keys(shown).length > 0 && <Output title={'response' in shown ? 'Response' : 'Result'} value={shown} />}
    </>
  );
}
