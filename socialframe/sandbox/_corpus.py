"""Word lists the sandbox draws its texts and names from.

The texts are written for the sandbox (none comes from a real person). They are
chosen to exercise what breaks parsers and renderers: emoji, right-to-left and
CJK scripts, line breaks, trailing spaces, empty strings, markup.
"""

from __future__ import annotations

SCRIPT = '<script>alert("x")</script>'

# Comment texts that every post with enough comments shows at least once: the
# generator hands them out first, so the 82-comment example post carries all.
COMMENT_QUIRKS: tuple[str, ...] = (
    "Great point   ",
    "",
    "Congrats on the launch! 🚀🔥👏",
    "Sehr spannender Beitrag, danke fürs Teilen! Größe zählt nicht immer.",
    "素晴らしい投稿ですね。とても参考になりました！",
    "مقال رائع، شكراً على المشاركة",
    "बहुत बढ़िया पोस्ट, धन्यवाद!",
    "非常有见地的分享，谢谢！",
    "We wrote about this last year: https://example.com/blog/ai-dispatch?utm_source=li",
    "First line.\nSecond line after a break.\n\nThird, after an empty one.",
    "Totally agree with ",
    "This is exactly what I told ",
    SCRIPT,
    "Well said 👏 and the data backs it up: https://example.org/report.pdf",
)

COMMENT_TEXTS: tuple[str, ...] = (
    "Thanks for sharing this.",
    "Interesting take. How did you measure the impact?",
    "Love this!",
    "Couldn't agree more.",
    "This resonates with what we see every day on our team.",
    "Congratulations to the whole team!",
    "Insightful as always 💡",
    "Would love to hear more about the rollout plan.",
    "Well deserved 🎉",
    "Looking forward to the next one.",
    "Great insights, thanks!",
    "Bravo ! Très belle réussite.",
    "¡Felicidades al equipo!",
    "Parabéns pela conquista!",
    "Отличная новость, поздравляю!",
    "축하합니다! 👏",
    "Spot on.\nThe hard part is the last mile.",
    "Curious how this compares with last quarter?",
    "Happy to connect and discuss.",
    "👏👏👏",
    "So true   ",
    "Impressive growth, congrats!",
    "Thanks for the shout-out ",
    "Docs here for anyone interested: https://example.com/docs",
)

FIRST_NAMES: tuple[str, ...] = (
    "Anna", "Ben", "Chloé", "David", "Elena", "Farid", "Grace", "Hiroshi",
    "Ingrid", "José", "Kavya", "Liam", "Mei", "Noah", "Olu", "Priya",
    "Ravi", "Sofía", "Tomás", "Uma", "Wei", "Yara", "Zoë", "Łukasz",
    "Дмитрий", "Анна", "Γιώργος", "محمد", "فاطمة", "राहुल", "さくら", "太郎",
    "伟", "민준", "Søren", "Ayşe",
)  # fmt: skip  # a word list: packed rows read as a table

LAST_NAMES: tuple[str, ...] = (
    "Müller", "Smith", "García", "Nguyen", "O'Connor", "Rossi", "Kowalski",
    "Tanaka", "Okafor", "Patel", "Silva", "Johansson", "Dubois", "Schmidt",
    "Kim", "Chen", "Lee", "Haddad", "Novak", "Andersen",
    "Иванов", "Παπαδόπουλος", "الحسن", "शर्मा", "佐藤", "王", "박", "Yılmaz",
)  # fmt: skip  # a word list: packed rows read as a table

HEADLINES: tuple[str, ...] = (
    "Head of Growth at Northwind | Ex-Consultant",
    "Software Engineer · Python · Data",
    "Founder & CEO @ Acme Robotics",
    "Product Manager | B2B SaaS | Mentor",
    "Recruiter – we are hiring! 🚀",
    "Student at TU München",
    "Marketing Director, EMEA",
    "データサイエンティスト",
    "مهندس برمجيات",
    "Helping teams ship faster. Opinions my own.",
    "--",
    ".",
)

COMPANIES: tuple[str, ...] = (
    "Northwind Logistics", "Acme Robotics", "Globex Analytics", "Initech",
    "Umbrella Health", "Stark Freight", "Wayne Capital", "Hooli Cloud",
    "Vandelay Industries", "Tyrell Systems", "Müller & Söhne GmbH", "株式会社サンプル",
)  # fmt: skip  # a word list: packed rows read as a table

BRANDS: tuple[str, ...] = (
    "Sunny Sprouts", "KidVenture", "StrideLab", "TrailFox", "Bloom & Co",
    "UrbanPace", "Little Giants", "Nordlicht", "PixelPlay", "Casa Verde",
    "Happy Tots Store", "RunRight", "Zenfit", "Maison Lune", "Kawaii Kids",
)  # fmt: skip  # a word list: packed rows read as a table

PAGE_CATEGORIES: tuple[str, ...] = (
    "Clothing (Brand)", "Shopping & retail", "Sportswear Store", "Baby goods/kids goods",
    "Education", "Product/service", "E-commerce website", "Toy store",
)  # fmt: skip  # a word list: packed rows read as a table

AD_BODIES: tuple[str, ...] = (
    "Back to school in style! Shop the new collection today. 🎒✨",
    "Free shipping on orders over $50. Limited time only!",
    "Laufschuhe für jeden Untergrund – jetzt 20 % sparen.",
    "Des vêtements qui grandissent avec vos enfants 🌱",
    "¡Nuevos colores disponibles! Envío gratis a toda España.",
    "子ども用の新作が入荷しました！",
    "عروض حصرية لفترة محدودة",
    "Run further, recover faster. 🏃\u200d♀️🔥\nOrder now: https://example.com/shop?src=fb",
    "Join 10,000+ happy parents. Learn more at https://example.org/kids",
    SCRIPT,
    "",
)

AD_TITLES: tuple[str, ...] = (
    "Shop now", "New arrivals", "Summer sale", "Limited edition", "Bestsellers",
    "Jetzt entdecken", "Nouveautés", "Ofertas", "新作",
)  # fmt: skip  # a word list: packed rows read as a table

PRODUCT_NAMES: tuple[str, ...] = (
    "Cloud Runner 3", "Trail Pro GTX", "Rainbow Hoodie", "Dino Backpack",
    "Puzzle Set 500", "Aero Knit Sneaker", "Kids Rain Boots", "Comfort Tee",
)  # fmt: skip  # a word list: packed rows read as a table

CTA: tuple[tuple[str, str], ...] = (
    ("Shop now", "SHOP_NOW"),
    ("Learn more", "LEARN_MORE"),
    ("Sign up", "SIGN_UP"),
    ("Download", "DOWNLOAD"),
    ("Order now", "ORDER_NOW"),
)
