#include "base/writeahead.h"

#include <atomic>

namespace railyard {

namespace {

std::atomic<AboutToWriteHandler> g_handler { nullptr };

} // namespace

void aboutToWrite(const void *data, std::size_t bytes)
{
    if (const AboutToWriteHandler handler = g_handler.load(std::memory_order_relaxed))
        handler(data, bytes);
}

void setAboutToWriteHandler(AboutToWriteHandler handler)
{
    g_handler.store(handler, std::memory_order_relaxed);
}

} // namespace railyard
