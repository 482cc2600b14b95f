import type { news } from '@gw/proto';

/** A news item as the dashboard and the create answer show it. */
export function newsItemView(item: news.NewsItem) {
  return {
    id: Number(item.id),
    title: item.title,
    content: item.content,
    created_at: item.createdAt,
    expires_at: item.expiresAt,
  };
}
