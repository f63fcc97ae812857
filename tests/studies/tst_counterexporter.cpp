// The counters input against a real exporter: Debian 12's prometheus-node-exporter (railyard.sh
// installs it) started on 127.0.0.1 with only the netdev collector, scraped twice around a
// known transfer over the loopback interface (this test sends N bytes through a local TCP
// socket), `lo` mapped to a fabric link by a mapping file, and the link's measured bytes
// compared with N. The exporter is stopped by its pid. Without the binary the suite skips,
// except under CI (the CI variable set), where it fails: CI installs railyard.sh's packages.
#include "cost/costengine.h"
#include "fixtures.h"
#include "io/portcounters.h"
#include "io/portmap.h"
#include "studies/countercompare.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

using namespace railyard;

namespace {

/// 64 MiB: large against the loopback chatter of an idle machine (a few KB/s), small enough to
/// send in well under a second.
constexpr long long kTransferBytes = 64ll << 20;

/// What may cross `lo` beside the transfer inside the window: TCP/IP headers (lo's MTU is
/// 65536, so ~66 bytes per 64 KiB segment: 0.1 %, plus the ACKs), the first scrape's HTTP
/// response (~10 KB) and other processes' loopback traffic on a shared machine. Measured bytes
/// must lie in [N, N * 1.05 + 2 MiB].
constexpr double kRelativeSlack = 0.05;
constexpr double kAbsoluteSlack = 2.0 * 1024 * 1024;

int loopbackSocket(sockaddr_in &addr)
{
    addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/// A port the kernel reports free on 127.0.0.1 (bound to port 0, read back, closed).
int freePort()
{
    sockaddr_in addr {};
    const int fd = loopbackSocket(addr);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

/// GET /metrics over HTTP/1.0 (the server closes the connection after the body); the body,
/// or an empty string when the exporter does not answer 200.
std::string scrape(int port)
{
    sockaddr_in addr {};
    const int fd = loopbackSocket(addr);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        if (fd >= 0)
            ::close(fd);
        return {};
    }
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL)
        != static_cast<ssize_t>(request.size())) {
        ::close(fd);
        return {};
    }
    std::string response;
    char buf[65536];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
        response.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    const std::size_t body = response.find("\r\n\r\n");
    if (response.rfind("HTTP/1.", 0) != 0 || response.compare(9, 3, "200") != 0
        || body == std::string::npos)
        return {};
    return response.substr(body + 4);
}

/// Sends `bytes` from one local TCP socket to another; returns the bytes the receiver got.
long long loopbackTransfer(long long bytes)
{
    sockaddr_in addr {};
    const int listener = loopbackSocket(addr);
    socklen_t len = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
        || ::listen(listener, 1) != 0
        || ::getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
        return -1;
    long long received = 0;
    std::thread reader([&] {
        const int in = ::accept(listener, nullptr, nullptr);
        if (in < 0)
            return;
        std::vector<char> buf(1 << 20);
        for (ssize_t n; (n = ::recv(in, buf.data(), buf.size(), 0)) > 0;)
            received += n;
        ::close(in);
    });
    const int out = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (out >= 0 && ::connect(out, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0) {
        const std::vector<char> chunk(1 << 20, 'x');
        for (long long sent = 0; sent < bytes;) {
            const auto want = static_cast<std::size_t>(std::min<long long>(bytes - sent, 1 << 20));
            const ssize_t n = ::send(out, chunk.data(), want, MSG_NOSIGNAL);
            if (n <= 0)
                break;
            sent += n;
        }
    }
    if (out >= 0)
        ::close(out);
    reader.join();
    ::close(listener);
    return received;
}

} // namespace

class TestCounterExporter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void loopbackTransferComesOutRight();
};

void TestCounterExporter::loopbackTransferComesOutRight()
{
    const QString exporter
        = QStandardPaths::findExecutable(QStringLiteral("prometheus-node-exporter"));
    if (exporter.isEmpty()) {
        if (qEnvironmentVariableIsSet("CI"))
            QFAIL("prometheus-node-exporter is not installed; railyard.sh's PACKAGES list it");
        QSKIP("prometheus-node-exporter is not installed (apt-get install "
              "prometheus-node-exporter, or ./railyard.sh install-profile main)");
    }
    const int port = freePort();
    QVERIFY(port > 0);
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice()); // its start-up log
    // Debian's build excludes "lo" by default (--collector.netdev.device-exclude="^lo$");
    // "^$" excludes nothing.
    process.start(exporter,
        { QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port),
            QStringLiteral("--collector.disable-defaults"), QStringLiteral("--collector.netdev"),
            QStringLiteral("--collector.netdev.device-exclude=^$") });
    QVERIFY2(process.waitForStarted(10000), qPrintable(process.errorString()));
    const qint64 pid = process.processId();
    const auto stop = qScopeGuard([&] {
        ::kill(static_cast<pid_t>(pid), SIGTERM);
        if (!process.waitForFinished(5000)) {
            ::kill(static_cast<pid_t>(pid), SIGKILL);
            process.waitForFinished(5000);
        }
    });
    std::string before;
    QElapsedTimer wait;
    wait.start();
    while ((before = scrape(port)).empty() && wait.elapsed() < 10000
        && process.state() == QProcess::Running)
        QTest::qWait(50);
    QVERIFY2(!before.empty(), "the exporter did not answer on 127.0.0.1 within 10 s");
    QElapsedTimer window;
    window.start();
    QCOMPARE(loopbackTransfer(kTransferBytes), kTransferBytes);
    const std::string after = scrape(port);
    const double seconds = static_cast<double>(window.nsecsElapsed()) * 1e-9;
    QVERIFY(!after.empty());

    const std::vector<PortCounterFile> files { parsePortCounters(before, "scrape-1"),
        parsePortCounters(after, "scrape-2") };
    QCOMPARE(files[0].format, std::string("prometheus"));
    const std::vector<PortRate> rates = portRates(files, seconds);
    PortMap map;
    map.file = "map.csv";
    map.entries.push_back({ "*", "lo", "", "node000/nic0", "leaf-su0-rail0", 1 });
    CostEngine engine(fixtures::seed128());
    const Fabric &f = engine.fabric();
    const CounterComparison c = compareCounters(rates, &map, f, engine.report());
    const int up = f.linkBetween(f.nicVertex(0, 0), f.leafVertex(0));
    const auto tx = std::find_if(
        c.links.begin(), c.links.end(), [&](const MeasuredLink &l) { return l.link == up; });
    const auto rx = std::find_if(c.links.begin(), c.links.end(),
        [&](const MeasuredLink &l) { return l.link == f.link(up).reverse; });
    QVERIFY(tx != c.links.end() && rx != c.links.end());
    const auto n = static_cast<double>(kTransferBytes);
    for (const MeasuredLink *l : { &*tx, &*rx }) {
        const double bytes = l->rate * seconds;
        const QByteArray why = QByteArray::number(bytes, 'f', 0) + " bytes over "
            + QByteArray::number(seconds, 'f', 3) + " s for " + QByteArray::number(kTransferBytes);
        qInfo("%s", why.constData());
        QVERIFY2(bytes >= n, why.constData());
        QVERIFY2(bytes <= n * (1.0 + kRelativeSlack) + kAbsoluteSlack, why.constData());
        QVERIFY(std::abs(l->measured - l->rate / f.linkBandwidth(l->link)) < 1e-12);
    }
    QCOMPARE(tx->ports, std::string("lo tx"));
}

QTEST_GUILESS_MAIN(TestCounterExporter)
#include "tst_counterexporter.moc"
