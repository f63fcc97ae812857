// SHA-256 (model/base/sha256.cpp) on the test vectors of FIPS 180-4's examples (NIST CSRC,
// "SHA256.pdf": "abc" and the 448-bit message) and the empty message, fed whole and in pieces
// across block boundaries, and on a file (the calibrate --compute-out provenance).
#include "base/scenarioerror.h"
#include "base/sha256.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace railyard;

class TestSha256 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void vectors_data();
    void vectors();
    void file();
};

void TestSha256::vectors_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<QString>("digest");
    QTest::newRow("empty") << QByteArray()
                           << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    QTest::newRow("abc") << QByteArray("abc")
                         << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    QTest::newRow("448 bits") << QByteArray(
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                              << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    QTest::newRow("a million a") << QByteArray(
        1000000, 'a') << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
}

void TestSha256::vectors()
{
    QFETCH(QByteArray, message);
    QFETCH(QString, digest);
    Sha256 whole;
    whole.update(std::string_view(message.constData(), static_cast<std::size_t>(message.size())));
    QCOMPARE(QString::fromStdString(whole.hex()), digest);
    // In pieces of 1, 63 and 65 bytes: the same.
    for (const std::size_t piece : { std::size_t(1), std::size_t(63), std::size_t(65) }) {
        if (piece == 1 && message.size() > 100000)
            continue;
        Sha256 parts;
        for (qsizetype at = 0; at < message.size(); at += static_cast<qsizetype>(piece))
            parts.update(std::string_view(message.constData() + at,
                std::min<std::size_t>(piece, static_cast<std::size_t>(message.size() - at))));
        QCOMPARE(QString::fromStdString(parts.hex()), digest);
    }
}

void TestSha256::file()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("m.txt")).toStdString();
    std::ofstream(path, std::ios::binary) << "abc";
    QCOMPARE(sha256OfFile(path),
        std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QVERIFY_THROWS_EXCEPTION(
        ScenarioError, sha256OfFile(dir.filePath(QStringLiteral("none")).toStdString()));
}

QTEST_GUILESS_MAIN(TestSha256)
#include "tst_sha256.moc"
