import {
  ActionGroup,
  Button,
  Card,
  CardBody,
  CardTitle,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  TextInput,
} from '@patternfly/react-core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { keys } from '../../app/queryKeys';
import { useSession } from '../../app/session';
import { FieldError } from '../../components/FieldError';
import { FlashAlert } from './FlashAlert';
import { useFlash } from './useFlash';

/** 'Profile Settings': the signed-in person's name and avatar. */
export function ProfileSection() {
  const { user } = useSession();
  const client = useQueryClient();
  const [name, setName] = useState(user.name);
  const [avatar, setAvatar] = useState(user.avatar ?? '');
  const [flash, setFlash] = useFlash();
  // Whether the address is verified (the session's user does not say).
  const profile = useQuery({ queryKey: ['profile'], queryFn: ({ signal }) => unwrap(api.GET('/api/profile', { signal })) });
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/api/profile', { body: { name, avatar } })),
    onMutate: () => setFlash(undefined),
    onSuccess: async () => {
      setFlash({ variant: 'success', text: 'Your profile was saved.' });
      await client.invalidateQueries({ queryKey: keys.whoami });
    },
    onError: (error) => setFlash({ variant: 'danger', text: errorMessage(error) }),
  });
  const problem = (field: string) =>
    save.error instanceof ApiError ? save.error.fieldProblems.find((p) => p.field === field)?.message : undefined;

  return (
    <Card isPlain>
      <CardTitle component="h2">Profile Settings</CardTitle>
      <CardBody>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <FormGroup label="Email" fieldId="profile-email">
            <TextInput id="profile-email" value={user.email ?? ''} readOnly readOnlyVariant="default" />
            {profile.data && (
              <FormHelperText>
                <HelperText>
                  {profile.data.verified ? (
                    <HelperTextItem variant="success">Verified</HelperTextItem>
                  ) : (
                    <HelperTextItem>
                      Not verified. <Link to="/verification?return_to=/profile-settings">Verify your address</Link>
                    </HelperTextItem>
                  )}
                </HelperText>
              </FormHelperText>
            )}
          </FormGroup>
          <FormGroup label="Name" fieldId="profile-name" isRequired>
            <TextInput
              id="profile-name"
              isRequired
              value={name}
              validated={problem('name') ? 'error' : 'default'}
              onChange={(_e, value) => setName(value)}
            />
            <FieldError text={problem('name')} />
          </FormGroup>
          <FormGroup label="Avatar URL" fieldId="profile-avatar">
            <TextInput
              id="profile-avatar"
              type="url"
              value={avatar}
              validated={problem('avatar') ? 'error' : 'default'}
              onChange={(_e, value) => setAvatar(value)}
            />
            <FieldError text={problem('avatar')} />
          </FormGroup>
          <FlashAlert flash={flash} />
          <ActionGroup>
            <Button type="submit" isLoading={save.isPending} isDisabled={save.isPending || !name.trim()}>
              Save
            </Button>
          </ActionGroup>
        </Form>
      </CardBody>
    </Card>
  );
}
