import { Button, Flex, FlexItem, Form, FormGroup, Label, TextArea } from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { DateTime } from '../../../components/DateTime';
import { SimpleSelect } from '../../../components/Selects';
import { historyText } from '../incidentModel';
import type { IncidentData } from './useIncidentData';

const personName = (p: { name: string; email: string | null } | null | undefined) => (p ? p.name || (p.email ?? '') : '');

/** The people and teams responding, and adding one. */
export function Responders({ data }: { data: IncidentData }) {
  const { authorizer } = useSession();
  const toast = useToast();
  const [choice, setChoice] = useState('');
  const options = [
    ...(data.people.data ?? []).map((p) => ({ value: `person:${p.id}`, label: personName(p), description: 'Person' })),
    ...(data.teams.data ?? []).map((t) => ({ value: `team:${t.id}`, label: t.name, description: 'Team' })),
  ];
  const add = () => {
    const [type, id] = choice.split(':');
    if (!type || !id) return;
    data.addResponder.mutate(type === 'team' ? { type, team_id: id } : { type, person_id: id }, {
      onSuccess: () => setChoice(''),
      onError: (e) => toast.error(errorMessage(e)),
    });
  };
  const responders = data.responders.data ?? [];
  return (
    <>
      {responders.length === 0 ? (
        <p>No responders yet.</p>
      ) : (
        <ul aria-label="Responders">
          {responders.map((r) => (
            <li key={r.id}>
              {r.team?.name ?? personName(r.person)} <Label isCompact>{r.type}</Label>
            </li>
          ))}
        </ul>
      )}
      {authorizer.can('responder', 'write') && (
        <Flex className="pf-v6-u-mt-sm" spaceItems={{ default: 'spaceItemsSm' }}>
          <FlexItem grow={{ default: 'grow' }}>
            <SimpleSelect label="Responder" placeholder="Select a person or team" options={options} value={choice} onChange={setChoice} />
          </FlexItem>
          <FlexItem>
            <Button variant="secondary" isDisabled={!choice || data.addResponder.isPending} onClick={add}>
              Add responder
            </Button>
          </FlexItem>
        </Flex>
      )}
    </>
  );
}

/** The incident's comments, oldest first, and adding one. */
export function Comments({ data }: { data: IncidentData }) {
  const { authorizer } = useSession();
  const toast = useToast();
  const [text, setText] = useState('');
  const comments = data.comments.data ?? [];
  const add = () => {
    if (!text.trim()) return;
    data.addComment.mutate({ comment: text.trim() }, { onSuccess: () => setText(''), onError: (e) => toast.error(errorMessage(e)) });
  };
  return (
    <>
      {comments.length === 0 ? (
        <p>No comments yet.</p>
      ) : (
        <ul aria-label="Comments" className="qd-comments">
          {comments.map((c) => (
            <li key={c.id}>
              <strong>{personName(c.created_by)}</strong> <DateTime value={c.created_at} />
              <p>{c.comment}</p>
            </li>
          ))}
        </ul>
      )}
      {authorizer.can('comments', 'write') && (
        <Form
          className="pf-v6-u-mt-sm"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <FormGroup label="Comment" fieldId="incident-comment">
            <TextArea id="incident-comment" value={text} onChange={(_e, v) => setText(v)} />
          </FormGroup>
          <div>
            <Button type="submit" variant="secondary" isDisabled={!text.trim() || data.addComment.isPending}>
              Add comment
            </Button>
          </div>
        </Form>
      )}
    </>
  );
}

/** What happened, newest first, from the incident's history: the server's description, else the event's name. */
export function Timeline({ data }: { data: IncidentData }) {
  const events = data.history.data ?? [];
  if (events.length === 0) return <p>No events yet.</p>;
  return (
    <ol aria-label="Timeline" className="qd-timeline">
      {events.map((h) => (
        <li key={h.id}>
          <DateTime value={h.created_at} /> <strong>{h.description || historyText(h.type)}</strong>
          {h.created_by ? ` (${personName(h.created_by)})` : ''}
        </li>
      ))}
    </ol>
  );
}
