import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Loaded } from '../api/use-load';

/** Loading, error and empty states around a page section. */
export function LoadState<T>({
  loaded,
  empty,
  children,
}: {
  loaded: Loaded<T>;
  empty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (loaded.error) {
    return (
      <Alert color="red" title="Could not load" role="alert">
        {loaded.error}
      </Alert>
    );
  }
  if (loaded.data === undefined) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (empty?.(loaded.data)) {
    return <Text c="dimmed">Nothing here yet.</Text>;
  }
  return <>{children(loaded.data)}</>;
}

/** An API error shown under a form. */
export function FormError({ message }: { message: string | undefined }) {
  return message ? (
    <Alert color="red" role="alert">
      {message}
    </Alert>
  ) : null;
}
