import { Anchor, Button, Card, Center, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormError } from '../components/states';
import { signIn, type Who } from '../session';

/** Paste the API key once: the edge answers a session cookie; the key is not kept here. */
export function SignInPage({
  onSignedIn,
  onSignup,
}: {
  onSignedIn: (who: Who) => void;
  onSignup: () => void;
}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    signIn(key).then(
      (who) => {
        setKey('');
        onSignedIn(who);
      },
      (failure: unknown) => {
        setError(failure instanceof Error ? failure.message : String(failure));
        setBusy(false);
      },
    );
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Card withBorder shadow="sm" padding="xl" w={420} maw="100%">
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h3">
              Sign in to the console
            </Title>
            <Text size="sm" c="dimmed">
              Paste your API key. It is exchanged for a session and not stored in this browser.
            </Text>
            <PasswordInput
              label="API key"
              value={key}
              onChange={(event) => setKey(event.currentTarget.value)}
              required
              autoComplete="off"
            />
            <FormError message={error} />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
            <Anchor component="button" type="button" size="sm" onClick={onSignup}>
              No key yet? Sign up
            </Anchor>
          </Stack>
        </form>
      </Card>
    </Center>
  );
}
