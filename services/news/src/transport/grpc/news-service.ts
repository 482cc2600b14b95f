import { AppError, ErrorCode, type AsyncHandlers } from '@gw/kit';
import { news as pb } from '@gw/proto';
import { createNews } from '../../domain/create-news.js';
import { deleteNews } from '../../domain/delete-news.js';
import { listNews } from '../../domain/list-news.js';
import type { NewsDeps } from '../../domain/ports/deps.js';
import type { NewsItem, NewsTarget } from '../../domain/ports/news.js';

const { NewsScope } = pb;

function toProtoItem(item: NewsItem): pb.NewsItem {
  return {
    id: item.id,
    title: item.title,
    content: item.content,
    createdAt: item.createdAt.toISOString(),
    expiresAt: item.expiresAt.toISOString(),
  };
}

function fromProtoTarget(target: pb.NewsTarget | undefined): NewsTarget {
  switch (target?.scope) {
    case NewsScope.NEWS_SCOPE_SYSTEM:
      return { scope: 'system' };
    case NewsScope.NEWS_SCOPE_USER:
      return { scope: 'user', accountId: target.accountId };
    case NewsScope.NEWS_SCOPE_DNA:
      return { scope: 'dna', dna: target.dna };
    case NewsScope.NEWS_SCOPE_UNSPECIFIED:
    case undefined:
      throw new AppError(ErrorCode.InvalidRequest, 'a news target needs a scope');
  }
}

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function newsHandlers(deps: NewsDeps): AsyncHandlers<pb.NewsServiceServer> {
  return {
    listNews: async (request) => {
      const found = await listNews(deps, {
        accountId: request.accountId,
        dna: request.dna,
        page: { limit: request.pageSize, offset: request.pageOffset },
      });
      return {
        systemNews: found.system.items.map(toProtoItem),
        userNews: found.user.items.map(toProtoItem),
        dnaNews: found.dna.items.map(toProtoItem),
        systemTotal: BigInt(found.system.total),
        userTotal: BigInt(found.user.total),
        dnaTotal: BigInt(found.dna.total),
      };
    },
    createNews: async (request) => ({
      item: toProtoItem(
        await createNews(deps, {
          target: fromProtoTarget(request.target),
          title: request.title,
          content: request.content,
          days: request.days,
          authorId: request.authorId,
          authorDna: request.authorDna,
          ipAddress: request.ipAddress,
        }),
      ),
    }),
    deleteNews: async (request) => ({
      deleted: BigInt(
        await deleteNews(
          deps,
          fromProtoTarget(request.target),
          request.callerDna === '' ? undefined : { dna: request.callerDna, id: request.callerId },
          // A caller older than operator_id names the deleter in caller_id only.
          {
            operatorId: request.operatorId === 0n ? request.callerId : request.operatorId,
            ipAddress: request.ipAddress,
          },
        ),
      ),
    }),
  };
}
