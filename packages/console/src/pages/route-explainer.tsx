import { Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/client';
import { FormError } from '../components/states';

/** GET /x-route: where a call for a model would go, without calling upstream. */
export function RouteExplainer() {
  const [model, setModel] = useState('');
  const [answer, setAnswer] = useState<string>();
  const [error, setError] = useState<string>();
  const explain = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const result = await api.GET('/x-route', { params: { query: { model } } });
    if (result.error || !result.data) {
      setError(errorMessage(result.error));
      setAnswer(undefined);
      return;
    }
    const route = result.data;
    setAnswer(
      route.Routable
        ? `${route.Model} → ${route.MappedModel} at Level ${String(route.Level)} over keys ${route.Keys.map((key) => key.Name).join(', ')}`
        : `not routable: ${route.Message || route.Reason}`,
    );
  };
  return (
    <Card withBorder component="form" onSubmit={(event) => void explain(event)}>
      <Stack>
        <Text fw={600}>Route explainer</Text>
        <Group align="end">
          <TextInput
            label="Model"
            value={model}
            onChange={(event) => setModel(event.currentTarget.value)}
            required
          />
          <Button type="submit">Explain</Button>
        </Group>
        <FormError message={error} />
        {answer && <Text data-testid="route-answer">{answer}</Text>}
      </Stack>
    </Card>
  );
}
