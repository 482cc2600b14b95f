import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs a load when its inputs change; the page shows loading, error and data from it. */
export function useLoad<T>(load: () => Promise<T>, inputs: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const run = useCallback(load, inputs);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    run().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) =>
        current &&
        setState({ error: error instanceof Error ? error.message : String(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [run, round]);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: () => setRound((value) => value + 1),
  };
}
