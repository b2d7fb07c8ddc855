/** What a caught value says: an error's message, anything else (a thrown string) as text. */
export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
